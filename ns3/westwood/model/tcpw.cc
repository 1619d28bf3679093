/* SPDX-License-Identifier: MIT */
#include "tcpw.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
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
            // A string, not an enum: ns-3's enum attribute API changed in 3.41.
            .AddAttribute("Sample",
                          "Which samples a Tustin step averages: \"trapezoid\", (b_k + b_{k-1}) / "
                          "2, the paper's eq. 2, or \"interval\", b_k weighted by its own interval",
                          StringValue("trapezoid"),
                          MakeStringAccessor(&Tcpw::SetSample, &Tcpw::GetSample),
                          MakeStringChecker())
            .AddAttribute("AckedCount",
                          "\"paper\" (seed 000 §2.3) or \"ucla\" (the UCLA ns-2 agent's: at most "
                          "2 segments an ACK)",
                          StringValue("paper"),
                          MakeStringAccessor(&Tcpw::SetAckedCount, &Tcpw::GetAckedCount),
                          MakeStringChecker());
    return tid;
}

Tcpw::Tcpw()
    : TcpwCongestionOps(),
      m_tau(MicroSeconds(WWC_TCPW_TAU_US)),
      m_m(WWC_TCPW_M),
      m_sampleRule(WWC_SAMPLE_TRAPEZOID),
      m_ackedRule(WWC_ACKED_PAPER)
{
    wwc_tcpw_init(&m_state);
}

Tcpw::Tcpw(const Tcpw& sock)
    : TcpwCongestionOps(sock),
      m_tau(sock.m_tau),
      m_m(sock.m_m),
      m_sampleRule(sock.m_sampleRule),
      m_ackedRule(sock.m_ackedRule)
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

void
Tcpw::SetSample(std::string sample)
{
    m_sampleRule = SampleRule(sample, "ns3::Tcpw::Sample");
}

std::string
Tcpw::GetSample() const
{
    return SampleName(m_sampleRule);
}

void
Tcpw::SetAckedCount(std::string rule)
{
    m_ackedRule = AckedCountRule(rule, "ns3::Tcpw::AckedCount");
}

std::string
Tcpw::GetAckedCount() const
{
    return AckedCountName(m_ackedRule);
}

void
Tcpw::ResetEstimator()
{
    wwc_tcpw_init(&m_state);
}

void
Tcpw::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t /* cwnd */)
{
    wwc_tcpw_on_ack_rule(&m_state, nowUs, ackSeq, mss, rttUs, TauUs(), m_m, m_sampleRule, m_ackedRule);
}

uint32_t
Tcpw::LossThreshold(uint64_t nowUs, uint32_t mss, bool /* timeout */, bool /* inSlowStart */)
{
    // The virtual samples due by the loss come first (a timeout fires after a silence).
    return wwc_tcpw_ssthresh_sampled(&m_state, nowUs, mss, TauUs(), m_m, m_sampleRule);
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
