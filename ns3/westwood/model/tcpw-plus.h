/* SPDX-License-Identifier: MIT */
/*
 * Westwood+ (Grieco and Mascolo): one bandwidth sample per RTT (a window of at least
 * MinWindow), smoothed by two 7/8 EWMAs, as Linux's tcp_westwood.c; the threshold from it at
 * a loss, as TCPW's.
 */
#ifndef TCPW_PLUS_H
#define TCPW_PLUS_H

#include "tcpw-congestion-ops.h"
#include "westwood_core.h"

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief Westwood+ over the project's C core (ns-3 from 3.38 ships its own TcpWestwoodPlus;
 * this one runs the code the project's kernel control and vectors check).
 */
class TcpwPlus : public TcpwCongestionOps
{
  public:
    static TypeId GetTypeId();

    TcpwPlus();
    TcpwPlus(const TcpwPlus& sock);

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
    Time m_minWindow;        //!< the shortest sampling window
    struct wwc_plus m_state; //!< the C core's estimator
};

} // namespace ns3

#endif /* TCPW_PLUS_H */
