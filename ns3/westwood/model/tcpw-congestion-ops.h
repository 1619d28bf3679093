/* SPDX-License-Identifier: MIT */
/*
 * The TCP Westwood family as ns-3 congestion controls: what every member shares.
 *
 * A Westwood sender low-pass filters the rate of returning ACKs into a bandwidth estimate
 * (BWE) and, after 3 DUPACKs or a timeout, sets ssthresh = BWE * RTTmin / seg_size instead of
 * halving (seed 000 §3, "faster recovery"). The arithmetic is the project's C core,
 * kernel/westwood_core.h (model/westwood_core.h here), the code the Linux eBPF congestion
 * controls run and that is replayed against the project's reference vectors: these classes
 * feed it ns-3's ACKs and turn its threshold into ns-3's ssthresh. The window grows as ns-3's
 * TcpNewReno (Reno's rules, which every paper of the family keeps).
 */
#ifndef TCPW_CONGESTION_OPS_H
#define TCPW_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup tcp
 *
 * \brief Base of the Westwood family: the filter fed on every ACK, the threshold at a loss.
 *
 * Feeding (seed 000 §2.3, AckedCount): ns-3 calls PktsAcked on every ACK, a DUPACK included
 * (with one segment), after it has stored the ACK's cumulative sequence number in
 * TcpSocketState::m_lastAckedSeq. The C core takes that number and does AckedCount itself: a
 * DUPACK credits one segment, a cumulative ACK after DUPACKs what they did not already credit.
 * An RTT sample is taken only from an ACK that advances the window (none from a DUPACK);
 * ns-3 up to 3.42 passes the smoothed RTT there, from 3.43 the sample (docs/ns3.md).
 *
 * Loss (seed 000 §3.1, §3.2): ns-3 asks GetSsThresh at the 3rd DUPACK (after telling
 * CongestionStateSet(CA_RECOVERY)) and at a retransmission timeout (before CwndEvent
 * (CA_EVENT_LOSS)); the answer is max(2, floor(BWE * RTTmin / seg_size)) segments, which
 * TCPW-TR divides by its threshold reduction factor, and the socket's recovery sets the
 * window from it (TcpClassicRecovery: ssthresh + 3 segments during recovery, ssthresh
 * after; a timeout: one segment). A reduction without either notice (ECN's CWR) takes the
 * timeout's threshold.
 */
class TcpwCongestionOps : public TcpNewReno
{
  public:
    static TypeId GetTypeId();

    TcpwCongestionOps();
    TcpwCongestionOps(const TcpwCongestionOps& sock);
    ~TcpwCongestionOps() override;

    void Init(Ptr<TcpSocketState> tcb) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;

    /** \return the bandwidth estimate BWE as of the last ACK or loss, bits/s. */
    virtual double GetBandwidthEstimate() const = 0;

    /** \return RTTmin as the loss rule uses it; zero before the first RTT sample. */
    virtual Time GetRttMin() const = 0;

  protected:
    /**
     * The Sample attribute's value as the C core numbers it (WWC_SAMPLE_TRAPEZOID or
     * WWC_SAMPLE_INTERVAL); anything but "trapezoid" or "interval" stops the program, naming
     * \p attribute. SampleName is the way back.
     */
    static uint32_t SampleRule(const std::string& value, const std::string& attribute);
    static std::string SampleName(uint32_t rule);

    /** The AckedCount attribute's value, "paper" or "ucla", as WWC_ACKED_*; and back. */
    static uint32_t AckedCountRule(const std::string& value, const std::string& attribute);
    static std::string AckedCountName(uint32_t rule);

    /** Start the estimator afresh (a new connection). */
    virtual void ResetEstimator() = 0;

    /**
     * One ACK, new or duplicate.
     * \param nowUs the time, microseconds
     * \param ackSeq the cumulative ACK number (32-bit sequence space)
     * \param mss the segment size, bytes
     * \param rttUs an RTT sample in microseconds, or -1 for none
     * \param cwndBytes the congestion window before this ACK, bytes
     */
    virtual void OnAck(uint64_t nowUs,
                       uint32_t ackSeq,
                       uint32_t mss,
                       int64_t rttUs,
                       uint64_t cwndBytes) = 0;

    /**
     * The threshold at a loss, segments (at least 2).
     * \param nowUs the time of the loss, microseconds
     * \param mss the segment size, bytes
     * \param timeout a retransmission timeout (else 3 DUPACKs)
     * \param inSlowStart cwnd < ssthresh when the loss was detected
     */
    virtual uint32_t LossThreshold(uint64_t nowUs, uint32_t mss, bool timeout, bool inSlowStart) = 0;

  private:
    /** Publish the estimate on the BandwidthEstimate trace. */
    void TraceEstimate();

    bool m_haveAck{false};             //!< m_lastAck holds an ACK
    SequenceNumber32 m_lastAck{0};     //!< the highest cumulative ACK seen
    bool m_dupacksAnnounced{false};    //!< CA_RECOVERY was announced: the next loss is 3 DUPACKs
    TracedValue<DataRate> m_estimate;  //!< BWE, for the trace source
};

} // namespace ns3

#endif /* TCPW_CONGESTION_OPS_H */
