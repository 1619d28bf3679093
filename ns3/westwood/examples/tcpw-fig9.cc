/* SPDX-License-Identifier: MIT */
/*
 * Seed 000 (Casetti et al., "TCP Westwood"), §5.1, fig. 8-9, in ns-3: one bulk transfer from
 * a wired host to a mobile one,
 *
 *   src --(10 Mb/s, 45 ms)--> base --(2 Mb/s, 0.01 ms, packet errors both ways)--> mobile
 *
 * with 400-byte segments and delayed ACKs (the paper's), drop-tail buffers of one
 * bandwidth-delay product (§4), and ns-3's TCP otherwise (its defaults: an initial window of
 * 10 segments, SACK with PRR recovery, timestamps, a 1 s minimum RTO, 200 ms delayed ACKs).
 * The project's scenario of the same path with ns-3's TCP behaviour is
 * scenarios/seed000_fig9_ns3.toml; docs/ns3.md compares the two.
 *
 *   tcpw-fig9 --cc=ns3::Tcpw --loss=0.01 --duration=100 --seed=1 [--rttSamples=1]
 *   [--trace=acks.csv] [--pcap=PREFIX]
 *
 * prints one line of JSON: the congestion control, the loss, the seed, the goodput (bits/s of
 * payload delivered in order to the application, over the transfer's time) and the sender's
 * retransmissions.
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/tcpw-congestion-ops.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <iomanip>
#include <fstream>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TcpwFig9");

namespace
{

uint32_t g_retransmissions = 0;   //!< data segments the sender sent again
uint32_t g_fastRecoveries = 0;    //!< entries into CA_RECOVERY (3 DUPACKs)
uint32_t g_timeouts = 0;          //!< entries into CA_LOSS (a retransmission timeout)
SequenceNumber32 g_highestSent{0}; //!< the end of the highest data the sender has sent
std::ofstream g_trace;             //!< --trace: one row per ACK the sender processed
Ptr<TcpwCongestionOps> g_westwood; //!< the sender's congestion control, if of the family
uint32_t g_cwnd = 0;               //!< the sender's state, as its trace sources report it
uint32_t g_ssthresh = 0;
uint32_t g_inFlight = 0;
TcpSocketState::TcpCongState_t g_state = TcpSocketState::CA_OPEN;

/** ns-3.37 has no retransmission trace: a data segment below the highest sent is one. */
void
CountRetransmission(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() == 0)
    {
        return;
    }
    const SequenceNumber32 end = header.GetSequenceNumber() + packet->GetSize();
    if (end <= g_highestSent)
    {
        ++g_retransmissions;
    }
    else
    {
        g_highestSent = end;
    }
}

void
Cwnd(uint32_t, uint32_t now)
{
    g_cwnd = now;
}

void
Ssthresh(uint32_t, uint32_t now)
{
    g_ssthresh = now;
}

void
InFlight(uint32_t, uint32_t now)
{
    g_inFlight = now;
}

void
CountStates(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_state = now;
    g_fastRecoveries += now == TcpSocketState::CA_RECOVERY;
    g_timeouts += now == TcpSocketState::CA_LOSS;
}

/** The sender's state once it has processed the ACK `ack` (the columns of docs/ack-trace.md). */
void
WriteTraceRow(uint32_t ack)
{
    g_trace << Simulator::Now().GetNanoSeconds() << "," << ack << "," << g_cwnd << ","
            << g_ssthresh << "," << (g_westwood ? g_westwood->GetBandwidthEstimate() : 0.0) << ","
            << (g_westwood ? g_westwood->GetRttMin().GetMicroSeconds() : 0) << ","
            << TcpSocketState::TcpCongStateName[g_state] << "," << g_inFlight << "\n";
}

void
TraceAck(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (header.GetFlags() & TcpHeader::ACK)
    {
        // After the socket has processed it: the next event at this instant.
        Simulator::ScheduleNow(&WriteTraceRow, header.GetAckNumber().GetValue());
    }
}

void
TraceSender()
{
    const std::string socket = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(socket + "Tx", MakeCallback(&CountRetransmission));
    Config::ConnectWithoutContext(socket + "CongState", MakeCallback(&CountStates));
    if (g_trace.is_open())
    {
        Config::ConnectWithoutContext(socket + "Rx", MakeCallback(&TraceAck));
        Config::ConnectWithoutContext(socket + "CongestionWindow", MakeCallback(&Cwnd));
        Config::ConnectWithoutContext(socket + "SlowStartThreshold", MakeCallback(&Ssthresh));
        Config::ConnectWithoutContext(socket + "BytesInFlight", MakeCallback(&InFlight));
        PointerValue ops;
        Config::LookupMatches(socket).Get(0)->GetAttribute("CongestionOps", ops);
        g_westwood = DynamicCast<TcpwCongestionOps>(ops.Get<TcpCongestionOps>());
    }
}

/** One bandwidth-delay product of a link, in packets of `packetBytes`, at least 4. */
uint32_t
BdpPackets(double rateBps, double rttSeconds, uint32_t packetBytes)
{
    const double packets = std::ceil(rateBps * rttSeconds / 8.0 / packetBytes);
    return static_cast<uint32_t>(std::max(4.0, packets));
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string cc = "ns3::Tcpw";
    double loss = 0.01;
    double duration = 100.0;
    uint32_t seed = 1;
    double wiredDelayMs = 45.0;
    uint32_t segmentSize = 400;
    std::string trace;
    std::string pcap;
    bool rttSamples = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("cc", "The sender's congestion control (a TypeId: ns3::Tcpw, ns3::TcpwTr, "
                       "ns3::TcpwAbse, ns3::TcpwPlus, ns3::TcpwUcla, ns3::TcpNewReno, ...)", cc);
    cmd.AddValue("loss", "Packet error probability on the wireless hop, each direction", loss);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("seed", "Run number of the random streams", seed);
    cmd.AddValue("wiredDelay", "One-way delay of the wired link, ms", wiredDelayMs);
    cmd.AddValue("segmentSize", "TCP payload per segment, bytes (the paper's 400)", segmentSize);
    cmd.AddValue("trace", "Write the sender's state after every ACK to this CSV file", trace);
    cmd.AddValue("pcap", "Capture every link's packets to PREFIX-NODE-DEVICE.pcap", pcap);
    cmd.AddValue("rttSamples",
                 "Hand congestion controls the latest RTT sample, as ns-3 from 3.43 does (up to "
                 "3.42 PktsAcked gets the smoothed RTT): RttMeanDeviation's Alpha = 1",
                 rttSamples);
    cmd.Parse(argc, argv);

    TypeId ccType;
    if (!TypeId::LookupByNameFailSafe(cc, &ccType))
    {
        std::cerr << "tcpw-fig9: --cc=" << cc << ": no such TypeId (try ns3::Tcpw)" << std::endl;
        return 2;
    }
    if (loss < 0 || loss > 1 || duration <= 0)
    {
        std::cerr << "tcpw-fig9: --loss must be in [0, 1] and --duration above 0" << std::endl;
        return 2;
    }
    if (!trace.empty())
    {
        g_trace.open(trace);
        if (!g_trace)
        {
            std::cerr << "tcpw-fig9: --trace=" << trace << ": cannot write" << std::endl;
            return 2;
        }
        g_trace << "time_ns,ack,cwnd_bytes,ssthresh_bytes,bwe_bps,rtt_min_us,ca_state,"
                   "in_flight_bytes\n";
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
    if (rttSamples)
    {
        // The socket's "estimate" is then its latest sample, which is what PktsAcked passes
        // (its RTO keeps RFC 6298's variance term).
        Config::SetDefault("ns3::RttMeanDeviation::Alpha", DoubleValue(1.0));
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    // The paper's receivers use delayed ACKs (ns-3's default: every 2nd segment, 200 ms).
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));

    NodeContainer nodes;
    nodes.Create(3); // src, base, mobile

    PointToPointHelper wired;
    wired.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    wired.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(wiredDelayMs * 1000))));
    PointToPointHelper wireless;
    wireless.SetDeviceAttribute("DataRate", StringValue("2Mbps"));
    wireless.SetChannelAttribute("Delay", TimeValue(MicroSeconds(10)));

    // §4: "Intermediate node buffer capacity is always set equal to the bandwidth-delay
    // product": the round trip's propagation times each link's rate, in data packets (payload,
    // 40 B of TCP/IP header, 12 B of timestamp option, 2 B of PPP).
    const double rtt = 2 * (wiredDelayMs + 0.01) / 1000.0;
    const uint32_t packet = segmentSize + 54;
    wired.SetQueue("ns3::DropTailQueue<Packet>",
                   "MaxSize",
                   QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, BdpPackets(10e6, rtt, packet))));
    wireless.SetQueue("ns3::DropTailQueue<Packet>",
                      "MaxSize",
                      QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, BdpPackets(2e6, rtt, packet))));

    NetDeviceContainer wiredDevices = wired.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer wirelessDevices = wireless.Install(nodes.Get(1), nodes.Get(2));

    // Independent packet errors "in both directions of the wireless link" (§5.1): each device of
    // the hop drops what it receives with probability `loss`, data and ACKs alike.
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RateErrorModel> errors = CreateObject<RateErrorModel>();
        errors->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        errors->SetRate(loss);
        errors->AssignStreams(10 + i);
        wirelessDevices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(errors));
    }

    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.1.0", "255.255.255.0");
    addresses.Assign(wiredDevices);
    addresses.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer mobile = addresses.Assign(wirelessDevices);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // The device's drop-tail queue is the buffer: no queue discipline in front of it.
    TrafficControlHelper trafficControl;
    trafficControl.Uninstall(wiredDevices);
    trafficControl.Uninstall(wirelessDevices);

    if (!pcap.empty())
    {
        wired.EnablePcapAll(pcap + "-wired");
        wireless.EnablePcapAll(pcap + "-wireless");
    }

    const uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(2));
    sinkApp.Start(Seconds(0));
    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(mobile.GetAddress(1), port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(segmentSize));
    ApplicationContainer sourceApp = source.Install(nodes.Get(0));
    sourceApp.Start(Seconds(0));

    // The socket exists once the application has started.
    Simulator::Schedule(NanoSeconds(1), &TraceSender);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));
    const double goodput = sink->GetTotalRx() * 8.0 / duration;
    std::cout << std::setprecision(10) << "{\"cc\":\"" << cc << "\",\"loss\":" << loss
              << ",\"seed\":" << seed << ",\"duration_s\":" << duration
              << ",\"rtt_samples\":" << (rttSamples ? "true" : "false")
              << ",\"goodput_bps\":" << goodput << ",\"retransmissions\":" << g_retransmissions
              << ",\"fast_recoveries\":" << g_fastRecoveries << ",\"timeouts\":" << g_timeouts
              << "}" << std::endl;
    g_westwood = nullptr;
    Simulator::Destroy();
    return 0;
}
