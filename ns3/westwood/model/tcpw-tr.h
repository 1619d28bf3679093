/* SPDX-License-Identifier: MIT */
/*
 * TCPW-TR, seed 001 (Mascolo et al., "TCP Westwood: congestion control with faster
 * recovery", UCLA CSD TR #200017): a constant-gain filter, alpha = (2r - 1) / (2r + 1) for a
 * time-constant to sampling-time ratio r (§II), and the threshold reduction factor a (§IV):
 * ssthresh = BWE * RTTmin / (seg_size * a), a growing by 0.25 at 3 DUPACKs and by 1 at a
 * timeout in slow start (at most 4), 1 in congestion avoidance.
 */
#ifndef TCPW_TR_H
#define TCPW_TR_H

#include "tcpw-congestion-ops.h"
#include "westwood_core.h"

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief TCPW with the threshold reduction factor (seed 001) over the project's C core.
 */
class TcpwTr : public TcpwCongestionOps
{
  public:
    static TypeId GetTypeId();

    TcpwTr();
    TcpwTr(const TcpwTr& sock);

    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;
    double GetBandwidthEstimate() const override;
    Time GetRttMin() const override;

    /** \return the threshold reduction factor a as of the last loss. */
    double GetReductionFactor() const;

  protected:
    void ResetEstimator() override;
    void OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t cwndBytes)
        override;
    uint32_t LossThreshold(uint64_t nowUs, uint32_t mss, bool timeout, bool inSlowStart) override;

  private:
    uint32_t m_ratio;      //!< time-constant to sampling-time ratio r
    struct wwc_tr m_state; //!< the C core's estimator and factor a
};

} // namespace ns3

#endif /* TCPW_TR_H */
