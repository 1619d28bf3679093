/* SPDX-License-Identifier: MIT */
/*
 * TCPW ABSE, seed 004 (Lengliz et al., "Measurements of TCPW ABSE fairness and
 * friendliness", §2.1): the sampling interval T_k adapts to the congestion level (eq. 4,
 * at least T_min) and the filter gain tau_k to the network's instability (eq. 6,
 * tau_k = RTT + N * RTT * U_k / U_max).
 */
#ifndef TCPW_ABSE_H
#define TCPW_ABSE_H

#include "tcpw-congestion-ops.h"
#include "westwood_core.h"

#include "ns3/data-rate.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief TCPW ABSE (seed 004) over the project's C core.
 */
class TcpwAbse : public TcpwCongestionOps
{
  public:
    static TypeId GetTypeId();

    TcpwAbse();
    TcpwAbse(const TcpwAbse& sock);

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
    /** The attributes as the C core takes them. */
    struct wwc_abse_params CoreParams() const;

    Time m_tMin;       //!< T_min, the shortest sampling interval
    uint32_t m_n;      //!< N of eq. 6
    double m_epsilon;  //!< the throughput filter's gain (eq. 3)
    double m_beta;     //!< the instability filter's gain (eq. 5)
    DataRate m_uMax;   //!< a fixed U_max; zero: the running maximum of U
    std::unique_ptr<struct wwc_abse> m_state; //!< the C core's estimator (8 KB of history)
};

} // namespace ns3

#endif /* TCPW_ABSE_H */
