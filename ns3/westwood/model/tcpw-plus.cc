/* SPDX-License-Identifier: MIT */
#include "tcpw-plus.h"

#include "ns3/log.h"
#include "ns3/nstime.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpwPlus");
NS_OBJECT_ENSURE_REGISTERED(TcpwPlus);

TypeId
TcpwPlus::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpwPlus")
            .SetParent<TcpwCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpwPlus>()
            .AddAttribute("MinWindow",
                          "The shortest window one bandwidth sample covers (Linux: 50 ms)",
                          TimeValue(MicroSeconds(WWC_PLUS_MIN_WINDOW_US)),
                          MakeTimeAccessor(&TcpwPlus::m_minWindow),
                          MakeTimeChecker(MicroSeconds(1), Seconds(3600)));
    return tid;
}

TcpwPlus::TcpwPlus()
    : TcpwCongestionOps(),
      m_minWindow(MicroSeconds(WWC_PLUS_MIN_WINDOW_US))
{
    wwc_plus_init(&m_state);
}

TcpwPlus::TcpwPlus(const TcpwPlus& sock)
    : TcpwCongestionOps(sock),
      m_minWindow(sock.m_minWindow)
{
    wwc_plus_init(&m_state);
}

std::string
TcpwPlus::GetName() const
{
    return "TcpwPlus";
}

Ptr<TcpCongestionOps>
TcpwPlus::Fork()
{
    return CopyObject<TcpwPlus>(this);
}

void
TcpwPlus::ResetEstimator()
{
    wwc_plus_init(&m_state);
}

void
TcpwPlus::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t /* cwnd */)
{
    const auto window = static_cast<uint32_t>(
        std::clamp<int64_t>(m_minWindow.GetMicroSeconds(), 1, UINT32_MAX));
    wwc_plus_on_ack(&m_state, nowUs, ackSeq, mss, rttUs, window);
}

uint32_t
TcpwPlus::LossThreshold(uint64_t /* nowUs */, uint32_t mss, bool /* timeout */, bool /* ss */)
{
    return wwc_plus_ssthresh(&m_state, mss);
}

double
TcpwPlus::GetBandwidthEstimate() const
{
    return static_cast<double>(wwc_plus_bwe_q8(&m_state)) / (1 << WWC_BWE_SHIFT);
}

Time
TcpwPlus::GetRttMin() const
{
    return (m_state.flags & WWC_F_HAVE_RTT) ? MicroSeconds(m_state.rtt_min_us) : Time(0);
}

} // namespace ns3
