/* SPDX-License-Identifier: MIT */
#include "tcpw-ucla.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpwUcla");
NS_OBJECT_ENSURE_REGISTERED(TcpwUcla);

TypeId
TcpwUcla::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpwUcla")
            .SetParent<TcpwCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpwUcla>()
            .AddAttribute("Filter",
                          "The agent's filter_type_: 0 EWMA, 1 and 2 constant Tustin "
                          "coefficients, 3 Tustin with Tau and idle periods (the default)",
                          UintegerValue(WWC_UCLA_FILTER_TAU),
                          MakeUintegerAccessor(&TcpwUcla::m_filter),
                          MakeUintegerChecker<uint32_t>(0, 3))
            .AddAttribute("Tau",
                          "Filter 3's time constant tau_ (1 s)",
                          TimeValue(MicroSeconds(WWC_UCLA_TAU_US)),
                          MakeTimeAccessor(&TcpwUcla::m_tau),
                          MakeTimeChecker(MilliSeconds(1), MicroSeconds(WWC_TCPW_TAU_MAX_US)))
            .AddAttribute("Alpha",
                          "Filter 0's gain fr_alpha_ (0.9)",
                          DoubleValue(WWC_UCLA_ALPHA_PPM / 1e6),
                          MakeDoubleAccessor(&TcpwUcla::m_alpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Tick",
                          "ns-2's tcp_tick_: RTTmin is kept in whole ticks (10 ms)",
                          TimeValue(MicroSeconds(WWC_UCLA_TICK_US)),
                          MakeTimeAccessor(&TcpwUcla::m_tick),
                          MakeTimeChecker(MicroSeconds(1), Seconds(10)))
            .AddAttribute("InitialRttMin",
                          "RTTmin before the first RTT sample (the agent's 5 s)",
                          TimeValue(MicroSeconds(WWC_UCLA_INITIAL_RTT_MIN_US)),
                          MakeTimeAccessor(&TcpwUcla::m_initialRttMin),
                          MakeTimeChecker(MicroSeconds(1), Seconds(3600)))
            .AddAttribute("Sample",
                          "\"trapezoid\" (the agent's (b + b_prev)) or \"interval\"",
                          StringValue("trapezoid"),
                          MakeStringAccessor(&TcpwUcla::SetSample, &TcpwUcla::GetSample),
                          MakeStringChecker())
            .AddAttribute("AckedCount",
                          "\"ucla\" (the agent's, at most 2 segments an ACK) or \"paper\" (seed "
                          "000 §2.3)",
                          StringValue("ucla"),
                          MakeStringAccessor(&TcpwUcla::SetAckedCount, &TcpwUcla::GetAckedCount),
                          MakeStringChecker());
    return tid;
}

TcpwUcla::TcpwUcla()
    : TcpwCongestionOps(),
      m_filter(WWC_UCLA_FILTER_TAU),
      m_tau(MicroSeconds(WWC_UCLA_TAU_US)),
      m_alpha(WWC_UCLA_ALPHA_PPM / 1e6),
      m_tick(MicroSeconds(WWC_UCLA_TICK_US)),
      m_initialRttMin(MicroSeconds(WWC_UCLA_INITIAL_RTT_MIN_US)),
      m_sampleRule(WWC_SAMPLE_TRAPEZOID),
      m_ackedRule(WWC_ACKED_UCLA)
{
    const struct wwc_ucla_params p = CoreParams();
    wwc_ucla_init(&m_state, &p);
}

TcpwUcla::TcpwUcla(const TcpwUcla& sock)
    : TcpwCongestionOps(sock),
      m_filter(sock.m_filter),
      m_tau(sock.m_tau),
      m_alpha(sock.m_alpha),
      m_tick(sock.m_tick),
      m_initialRttMin(sock.m_initialRttMin),
      m_sampleRule(sock.m_sampleRule),
      m_ackedRule(sock.m_ackedRule)
{
    const struct wwc_ucla_params p = CoreParams();
    wwc_ucla_init(&m_state, &p);
}

std::string
TcpwUcla::GetName() const
{
    return "TcpwUcla";
}

Ptr<TcpCongestionOps>
TcpwUcla::Fork()
{
    return CopyObject<TcpwUcla>(this);
}

struct wwc_ucla_params
TcpwUcla::CoreParams() const
{
    const auto us = [](const Time& t) {
        return static_cast<__u32>(std::clamp<int64_t>(t.GetMicroSeconds(), 1, UINT32_MAX));
    };
    struct wwc_ucla_params p = {};
    p.filter = m_filter;
    p.tau_us = us(m_tau);
    p.alpha_ppm = static_cast<__u32>(std::lround(std::clamp(m_alpha, 0.0, 1.0) * 1e6));
    p.tick_us = us(m_tick);
    p.initial_rtt_min_us = us(m_initialRttMin);
    p.sample = m_sampleRule;
    return p;
}

void
TcpwUcla::SetSample(std::string sample)
{
    m_sampleRule = SampleRule(sample, "ns3::TcpwUcla::Sample");
}

std::string
TcpwUcla::GetSample() const
{
    return SampleName(m_sampleRule);
}

void
TcpwUcla::SetAckedCount(std::string rule)
{
    m_ackedRule = AckedCountRule(rule, "ns3::TcpwUcla::AckedCount");
}

std::string
TcpwUcla::GetAckedCount() const
{
    return AckedCountName(m_ackedRule);
}

void
TcpwUcla::ResetEstimator()
{
    const struct wwc_ucla_params p = CoreParams();
    wwc_ucla_init(&m_state, &p);
}

void
TcpwUcla::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t /* cwnd */)
{
    const struct wwc_ucla_params p = CoreParams();
    wwc_ucla_on_ack(&m_state, &p, nowUs, ackSeq, mss, rttUs, m_ackedRule);
}

uint32_t
TcpwUcla::LossThreshold(uint64_t /* nowUs */, uint32_t mss, bool timeout, bool inSlowStart)
{
    return wwc_ucla_ssthresh(&m_state, timeout, inSlowStart, mss);
}

double
TcpwUcla::GetBandwidthEstimate() const
{
    return static_cast<double>(wwc_ucla_bwe_q8(&m_state)) / (1 << WWC_BWE_SHIFT);
}

Time
TcpwUcla::GetRttMin() const
{
    // The agent's RTTmin always has a value: the initial one before any sample.
    return MicroSeconds(m_state.rtt_min_us);
}

double
TcpwUcla::GetReductionFactor() const
{
    return m_state.a_quarters / static_cast<double>(WWC_TR_A_ONE);
}

} // namespace ns3
