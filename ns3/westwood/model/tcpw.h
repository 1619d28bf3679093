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
    /** Which samples one Tustin step averages (docs/westwood.md in the project). */
    enum Sample
    {
        TRAPEZOID, //!< (b_k + b_{k-1}) / 2, the paper's eq. 2
        INTERVAL,  //!< b_k alone, each sample weighted by its own interval
    };

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
    uint32_t SampleRule() const;

    Time m_tau;           //!< the filter's time constant tau
    uint32_t m_m;         //!< virtual samples every tau / m of silence
    Sample m_sample;      //!< the trapezoid (the paper's) or the interval sample
    struct wwc_tcpw m_state; //!< the C core's estimator
};

} // namespace ns3

#endif /* TCPW_H */
