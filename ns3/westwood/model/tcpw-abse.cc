/* SPDX-License-Identifier: MIT */
#include "tcpw-abse.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpwAbse");
NS_OBJECT_ENSURE_REGISTERED(TcpwAbse);

TypeId
TcpwAbse::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpwAbse")
            .SetParent<TcpwCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpwAbse>()
            .AddAttribute("TMin",
                          "T_min, the shortest sampling interval (seed 004: 50 ms)",
                          TimeValue(MicroSeconds(WWC_ABSE_T_MIN_US)),
                          MakeTimeAccessor(&TcpwAbse::m_tMin),
                          MakeTimeChecker(MicroSeconds(1), Seconds(3600)))
            .AddAttribute("N",
                          "N of eq. 6: tau_k ranges from RTT to (1 + N) RTT",
                          UintegerValue(WWC_ABSE_N),
                          MakeUintegerAccessor(&TcpwAbse::m_n),
                          MakeUintegerChecker<uint32_t>(0, WWC_ABSE_N_MAX))
            .AddAttribute("Epsilon",
                          "Gain of the throughput filter, eq. 3 (0.6; the core keeps whole thousandths)",
                          DoubleValue(WWC_ABSE_EPSILON_PERMILLE / 1000.0),
                          MakeDoubleAccessor(&TcpwAbse::m_epsilon),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "Gain of the instability filter, eq. 5 (0.6; the core keeps whole thousandths)",
                          DoubleValue(WWC_ABSE_BETA_PERMILLE / 1000.0),
                          MakeDoubleAccessor(&TcpwAbse::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("UMax",
                          "A fixed U_max of eq. 6; 0 (the default) uses the running maximum of U",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&TcpwAbse::m_uMax),
                          MakeDataRateChecker());
    return tid;
}

TcpwAbse::TcpwAbse()
    : TcpwCongestionOps(),
      m_tMin(MicroSeconds(WWC_ABSE_T_MIN_US)),
      m_n(WWC_ABSE_N),
      m_epsilon(WWC_ABSE_EPSILON_PERMILLE / 1000.0),
      m_beta(WWC_ABSE_BETA_PERMILLE / 1000.0),
      m_uMax(0),
      m_state(std::make_unique<struct wwc_abse>())
{
    wwc_abse_init(m_state.get());
}

TcpwAbse::TcpwAbse(const TcpwAbse& sock)
    : TcpwCongestionOps(sock),
      m_tMin(sock.m_tMin),
      m_n(sock.m_n),
      m_epsilon(sock.m_epsilon),
      m_beta(sock.m_beta),
      m_uMax(sock.m_uMax),
      m_state(std::make_unique<struct wwc_abse>())
{
    wwc_abse_init(m_state.get());
}

std::string
TcpwAbse::GetName() const
{
    return "TcpwAbse";
}

Ptr<TcpCongestionOps>
TcpwAbse::Fork()
{
    return CopyObject<TcpwAbse>(this);
}

struct wwc_abse_params
TcpwAbse::CoreParams() const
{
    const auto permille = [](double gain) {
        return static_cast<__u32>(std::lround(std::clamp(gain, 0.0, 1.0) * 1000.0));
    };
    struct wwc_abse_params p = {};
    p.t_min_us = static_cast<__u32>(std::clamp<int64_t>(m_tMin.GetMicroSeconds(), 1, UINT32_MAX));
    p.n = m_n;
    p.epsilon_permille = permille(m_epsilon);
    p.beta_permille = permille(m_beta);
    p.u_max_q8 = m_uMax.GetBitRate() << WWC_BWE_SHIFT;
    p.history_slot_ns = 0; // T_min / 32, the reference's
    p.reserved = 0;
    return p;
}

void
TcpwAbse::ResetEstimator()
{
    wwc_abse_init(m_state.get());
}

void
TcpwAbse::OnAck(uint64_t nowUs, uint32_t ackSeq, uint32_t mss, int64_t rttUs, uint64_t cwndBytes)
{
    const struct wwc_abse_params p = CoreParams();
    wwc_abse_on_ack(m_state.get(), &p, nowUs, ackSeq, mss, rttUs, cwndBytes);
}

uint32_t
TcpwAbse::LossThreshold(uint64_t /* nowUs */, uint32_t mss, bool /* timeout */, bool /* ss */)
{
    return wwc_abse_ssthresh(m_state.get(), mss);
}

double
TcpwAbse::GetBandwidthEstimate() const
{
    return static_cast<double>(wwc_abse_bwe_q8(m_state.get())) / (1 << WWC_BWE_SHIFT);
}

Time
TcpwAbse::GetRttMin() const
{
    return (m_state->flags & WWC_F_HAVE_RTT) ? MicroSeconds(wwc_abse_rtt_min_us(m_state.get()))
                                             : Time(0);
}

} // namespace ns3
