/* SPDX-License-Identifier: MIT */
/*
 * TCPW, seed 000 (Casetti et al., "TCP Westwood: End-to-End Congestion Control for
 * Wired/Wireless Networks"): the Tustin filter of §2.2 with a time constant tau, its gain
 * alpha_k following the gap between ACKs, and a virtual zero sample every tau/m of silence.
 */
#ifndef TCPW_H
#define TCPW_H

#include "tcpw-congestion-ops.h"
#include "westwood_core.h"

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief TCPW (seed 000): the paper's filter over the project's C core.
 */
class Tcpw : public TcpwCongestionOps
{
  public:
    static TypeId GetTypeId();

    Tcpw();
    Tcpw(const Tcpw& sock);

    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;
    double GetBandwidthEstimate() const override;
    Time GetRttMin() const override;

  protected:
    void ResetEstimator() override;
    void OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t cwndBytes)
        override;
    uint32_t LossThreshold(uint64_t nowUs, uint32_t mss, bool timeout, bool inSlowStart) override;

  private:
    uint32_t TauUs() const;
    /** The Sample attribute: "trapezoid" or "interval" (anything else stops the program). */
    void SetSample(std::string sample);
    std::string GetSample() const;
    /** The AckedCount attribute: "paper" or "ucla". */
    void SetAckedCount(std::string rule);
    std::string GetAckedCount() const;

    Time m_tau;            //!< the filter's time constant tau
    uint32_t m_m;          //!< virtual samples every tau / m of silence
    uint32_t m_sampleRule; //!< WWC_SAMPLE_TRAPEZOID (the paper's) or WWC_SAMPLE_INTERVAL
    uint32_t m_ackedRule;  //!< WWC_ACKED_PAPER (seed 000 §2.3) or WWC_ACKED_UCLA
    struct wwc_tcpw m_state; //!< the C core's estimator
};

} // namespace ns3

#endif /* TCPW_H */
