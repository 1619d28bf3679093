/* SPDX-License-Identifier: MIT */
#include "tcpw.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Tcpw");
NS_OBJECT_ENSURE_REGISTERED(Tcpw);

TypeId
Tcpw::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Tcpw")
            .SetParent<TcpwCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<Tcpw>()
            .AddAttribute("Tau",
                          "The filter's time constant tau (seed 000 §4: 500 ms)",
                          TimeValue(MicroSeconds(WWC_TCPW_TAU_US)),
                          MakeTimeAccessor(&Tcpw::m_tau),
                          MakeTimeChecker(MilliSeconds(1), MicroSeconds(WWC_TCPW_TAU_MAX_US)))
            .AddAttribute("M",
                          "A virtual zero sample every tau / M without an ACK (M >= 2)",
                          UintegerValue(WWC_TCPW_M),
                          MakeUintegerAccessor(&Tcpw::m_m),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("Sample",
                          "Which samples a Tustin step averages: trapezoid (the paper's) or "
                          "interval",
                          EnumValue(Tcpw::TRAPEZOID),
                          MakeEnumAccessor(&Tcpw::m_sample),
                          MakeEnumChecker(Tcpw::TRAPEZOID, "trapezoid", Tcpw::INTERVAL, "interval"));
    return tid;
}

Tcpw::Tcpw()
    : TcpwCongestionOps(),
      m_tau(MicroSeconds(WWC_TCPW_TAU_US)),
      m_m(WWC_TCPW_M),
      m_sample(TRAPEZOID)
{
    wwc_tcpw_init(&m_state);
}

Tcpw::Tcpw(const Tcpw& sock)
    : TcpwCongestionOps(sock),
      m_tau(sock.m_tau),
      m_m(sock.m_m),
      m_sample(sock.m_sample)
{
    wwc_tcpw_init(&m_state);
}

std::string
Tcpw::GetName() const
{
    return "Tcpw";
}

Ptr<TcpCongestionOps>
Tcpw::Fork()
{
    return CopyObject<Tcpw>(this);
}

uint32_t
Tcpw::TauUs() const
{
    return static_cast<uint32_t>(
        std::clamp<int64_t>(m_tau.GetMicroSeconds(), 1000, WWC_TCPW_TAU_MAX_US));
}

uint32_t
Tcpw::SampleRule() const
{
    return m_sample == INTERVAL ? WWC_SAMPLE_INTERVAL : WWC_SAMPLE_TRAPEZOID;
}

void
Tcpw::ResetEstimator()
{
    wwc_tcpw_init(&m_state);
}

void
Tcpw::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t /* cwnd */)
{
    wwc_tcpw_on_ack_sampled(&m_state, nowUs, ackSeq, mss, rttUs, TauUs(), m_m, SampleRule());
}

uint32_t
Tcpw::LossThreshold(uint64_t nowUs, uint32_t mss, bool /* timeout */, bool /* inSlowStart */)
{
    // The virtual samples due by the loss come first (a timeout fires after a silence).
    return wwc_tcpw_ssthresh_sampled(&m_state, nowUs, mss, TauUs(), m_m, SampleRule());
}

double
Tcpw::GetBandwidthEstimate() const
{
    return static_cast<double>(wwc_tcpw_bwe_q8(&m_state)) / (1 << WWC_BWE_SHIFT);
}

Time
Tcpw::GetRttMin() const
{
    return (m_state.flags & WWC_F_HAVE_RTT) ? MicroSeconds(m_state.rtt_min_us) : Time(0);
}

} // namespace ns3
