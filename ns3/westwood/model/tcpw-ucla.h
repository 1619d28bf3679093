/* SPDX-License-Identifier: MIT */
/*
 * The authors' own ns-2 agent (UCLA tcp-westwood.cc v1.3, 2002, Agent/TCP/Westwood): one of
 * four filters over the ACK samples (filter 3, the default: a Tustin step with time constant
 * tau and idle periods of tau/2), RTTmin in ns-2's coarse clock ticks, its own AckedCount
 * (at most 2 segments an ACK) and a factor a that starts at 0, moves at every loss and divides
 * only a timeout's threshold. The project's docs/westwood.md describes it and what was chosen
 * where the agent gives no rule.
 */
#ifndef TCPW_UCLA_H
#define TCPW_UCLA_H

#include "tcpw-congestion-ops.h"
#include "westwood_core.h"

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief The UCLA ns-2 agent's TCPW over the project's C core.
 */
class TcpwUcla : public TcpwCongestionOps
{
  public:
    static TypeId GetTypeId();

    TcpwUcla();
    TcpwUcla(const TcpwUcla& sock);

    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;
    double GetBandwidthEstimate() const override;
    Time GetRttMin() const override;

    /** \return the factor a (fr_a_) as of the last loss. */
    double GetReductionFactor() const;

  protected:
    void ResetEstimator() override;
    void OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t cwndBytes)
        override;
    uint32_t LossThreshold(uint64_t nowUs, uint32_t mss, bool timeout, bool inSlowStart) override;

  private:
    /** The attributes as the C core takes them. */
    struct wwc_ucla_params CoreParams() const;
    void SetSample(std::string sample);
    std::string GetSample() const;
    void SetAckedCount(std::string rule);
    std::string GetAckedCount() const;

    uint32_t m_filter;        //!< filter_type_, 0-3
    Time m_tau;               //!< filter 3's time constant tau_
    double m_alpha;           //!< filter 0's gain fr_alpha_
    Time m_tick;              //!< ns-2's tcp_tick_, the RTT clock
    Time m_initialRttMin;     //!< RTTmin before the first sample
    uint32_t m_sampleRule;    //!< WWC_SAMPLE_TRAPEZOID (the agent's) or WWC_SAMPLE_INTERVAL
    uint32_t m_ackedRule;     //!< WWC_ACKED_UCLA (the agent's) or WWC_ACKED_PAPER
    struct wwc_ucla m_state;  //!< the C core's estimator
};

} // namespace ns3

#endif /* TCPW_UCLA_H */
