/* SPDX-License-Identifier: MIT */
#include "tcpw-tr.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpwTr");
NS_OBJECT_ENSURE_REGISTERED(TcpwTr);

TypeId
TcpwTr::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpwTr")
            .SetParent<TcpwCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpwTr>()
            .AddAttribute("Ratio",
                          "Time-constant to sampling-time ratio r of the filter, alpha = "
                          "(2r - 1) / (2r + 1) (seed 001: 10)",
                          UintegerValue(WWC_TR_RATIO),
                          MakeUintegerAccessor(&TcpwTr::m_ratio),
                          MakeUintegerChecker<uint32_t>(1, WWC_TR_RATIO_MAX));
    return tid;
}

TcpwTr::TcpwTr()
    : TcpwCongestionOps(),
      m_ratio(WWC_TR_RATIO)
{
    wwc_tr_init(&m_state);
}

TcpwTr::TcpwTr(const TcpwTr& sock)
    : TcpwCongestionOps(sock),
      m_ratio(sock.m_ratio)
{
    wwc_tr_init(&m_state);
}

std::string
TcpwTr::GetName() const
{
    return "TcpwTr";
}

Ptr<TcpCongestionOps>
TcpwTr::Fork()
{
    return CopyObject<TcpwTr>(this);
}

void
TcpwTr::ResetEstimator()
{
    wwc_tr_init(&m_state);
}

void
TcpwTr::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t /* cwnd */)
{
    wwc_tr_on_ack(&m_state, nowUs, ackSeq, mss, rttUs, m_ratio);
}

uint32_t
TcpwTr::LossThreshold(uint64_t /* nowUs */, uint32_t mss, bool timeout, bool inSlowStart)
{
    return wwc_tr_ssthresh(&m_state, timeout, inSlowStart, mss);
}

double
TcpwTr::GetBandwidthEstimate() const
{
    return static_cast<double>(wwc_tr_bwe_q8(&m_state)) / (1 << WWC_BWE_SHIFT);
}

Time
TcpwTr::GetRttMin() const
{
    return (m_state.flags & WWC_F_HAVE_RTT) ? MicroSeconds(wwc_tr_rtt_min_us(&m_state)) : Time(0);
}

double
TcpwTr::GetReductionFactor() const
{
    return m_state.a_quarters / static_cast<double>(WWC_TR_A_ONE);
}

} // namespace ns3
