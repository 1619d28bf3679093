/* SPDX-License-Identifier: MIT */
#include "tcpw-congestion-ops.h"

#include "westwood_core.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpwCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(TcpwCongestionOps);

TypeId
TcpwCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpwCongestionOps")
            .SetParent<TcpNewReno>()
            .SetGroupName("Internet")
            .AddTraceSource("BandwidthEstimate",
                            "The bandwidth estimate BWE, after every ACK and loss",
                            MakeTraceSourceAccessor(&TcpwCongestionOps::m_estimate),
                            "ns3::TracedValueCallback::DataRate");
    return tid;
}

TcpwCongestionOps::TcpwCongestionOps()
    : TcpNewReno()
{
    NS_LOG_FUNCTION(this);
}

TcpwCongestionOps::TcpwCongestionOps(const TcpwCongestionOps& sock)
    : TcpNewReno(sock)
{
    NS_LOG_FUNCTION(this);
}

TcpwCongestionOps::~TcpwCongestionOps() = default;

void
TcpwCongestionOps::Init(Ptr<TcpSocketState> tcb)
{
    NS_LOG_FUNCTION(this << tcb);
    m_haveAck = false;
    m_lastAck = SequenceNumber32(0);
    m_dupacksAnnounced = false;
    ResetEstimator();
    TraceEstimate();
}

void
TcpwCongestionOps::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked << rtt);
    const SequenceNumber32 ack = tcb->m_lastAckedSeq;
    const bool advances = !m_haveAck || ack > m_lastAck;
    // A DUPACK carries no RTT sample of its own (ns-3 passes the last one again).
    const int64_t rttUs = advances && rtt.IsStrictlyPositive() ? rtt.GetMicroSeconds() : -1;
    const uint64_t nowUs = static_cast<uint64_t>(Simulator::Now().GetMicroSeconds());
    OnAck(nowUs, ack.GetValue(), tcb->m_segmentSize, rttUs, tcb->m_cWnd.Get());
    if (advances)
    {
        m_lastAck = ack;
        m_haveAck = true;
    }
    TraceEstimate();
}

uint32_t
TcpwCongestionOps::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    NS_LOG_FUNCTION(this << tcb << bytesInFlight);
    const bool timeout = !m_dupacksAnnounced;
    m_dupacksAnnounced = false;
    const bool inSlowStart = tcb->m_cWnd < tcb->m_ssThresh;
    const uint64_t nowUs = static_cast<uint64_t>(Simulator::Now().GetMicroSeconds());
    const uint32_t segments = LossThreshold(nowUs, tcb->m_segmentSize, timeout, inSlowStart);
    TraceEstimate();
    const uint64_t bytes = static_cast<uint64_t>(segments) * tcb->m_segmentSize;
    NS_LOG_INFO((timeout ? "timeout" : "3 DUPACKs") << ": BWE " << GetBandwidthEstimate()
                                                     << " b/s, RTTmin " << GetRttMin()
                                                     << ", ssthresh " << segments << " segments");
    return static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
}

void
TcpwCongestionOps::CongestionStateSet(Ptr<TcpSocketState> tcb,
                                      const TcpSocketState::TcpCongState_t newState)
{
    NS_LOG_FUNCTION(this << tcb << newState);
    // ns-3 announces fast recovery before it asks for the threshold; a timeout it announces
    // after (CwndEvent(CA_EVENT_LOSS), then CA_LOSS), so an unannounced question is a timeout.
    m_dupacksAnnounced = newState == TcpSocketState::CA_RECOVERY;
}

uint32_t
TcpwCongestionOps::SampleRule(const std::string& value, const std::string& attribute)
{
    NS_ABORT_MSG_UNLESS(value == "trapezoid" || value == "interval",
                        attribute << " = \"" << value << "\": expected \"trapezoid\" or \"interval\"");
    return value == "interval" ? WWC_SAMPLE_INTERVAL : WWC_SAMPLE_TRAPEZOID;
}

std::string
TcpwCongestionOps::SampleName(uint32_t rule)
{
    return rule == WWC_SAMPLE_INTERVAL ? "interval" : "trapezoid";
}

uint32_t
TcpwCongestionOps::AckedCountRule(const std::string& value, const std::string& attribute)
{
    NS_ABORT_MSG_UNLESS(value == "paper" || value == "ucla",
                        attribute << " = \"" << value << "\": expected \"paper\" or \"ucla\"");
    return value == "ucla" ? WWC_ACKED_UCLA : WWC_ACKED_PAPER;
}

std::string
TcpwCongestionOps::AckedCountName(uint32_t rule)
{
    return rule == WWC_ACKED_UCLA ? "ucla" : "paper";
}

void
TcpwCongestionOps::TraceEstimate()
{
    m_estimate = DataRate(static_cast<uint64_t>(std::llround(GetBandwidthEstimate())));
}

} // namespace ns3
