/* SPDX-License-Identifier: MIT */
/*
 * Replays the project's reference vectors (vectors/<variant>/<sequence>.jsonl, format in the
 * project's docs/vectors.md) through the ns-3 classes, as crates/bpf-core replays them through
 * the C core for the Linux eBPF controls, and holds them to the same bounds:
 *
 *   - BWE within 1 % of the reference's (or 100 bit/s near zero);
 *   - cwnd and ssthresh exactly (whole segments; the initial ssthresh, 2^31 - 1 bytes, is not
 *     a whole number of segments and is not compared);
 *   - RTTmin exactly (whole microseconds).
 *
 * Each event is scheduled at its time_us, so the classes read the time from Simulator::Now()
 * as they do in a simulation. ns-3's socket is not in the loop: the replay plays its part,
 * calling the hooks in the order TcpSocketBase does (ns-3.37, tcp-socket-base.cc) —
 * PktsAcked on every ACK with m_lastAckedSeq set; at the 3rd DUPACK CongestionStateSet
 * (CA_RECOVERY) then GetSsThresh; at a timeout GetSsThresh, then CwndEvent(CA_EVENT_LOSS)
 * and CongestionStateSet(CA_LOSS); at the end of recovery CongestionStateSet(CA_OPEN) — and
 * keeping the window by the vectors' rules (Reno growth outside recovery; after DUPACKs cwnd
 * capped at ssthresh, after a timeout one segment), as the C core's replay does.
 */
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/tcpw-abse.h"
#include "ns3/tcpw-plus.h"
#include "ns3/tcpw-tr.h"
#include "ns3/tcpw-ucla.h"
#include "ns3/tcpw.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** A JSON value of the vectors' lines: objects of numbers, booleans, strings and null. */
struct Json
{
    enum Kind
    {
        NUL,
        BOOLEAN,
        NUMBER,
        STRING,
        OBJECT
    };

    Kind kind{NUL};
    bool boolean{false};
    double number{0};
    std::string text;
    std::map<std::string, Json> members;

    bool Has(const std::string& key) const
    {
        auto it = members.find(key);
        return it != members.end() && it->second.kind != NUL;
    }

    const Json& operator[](const std::string& key) const
    {
        auto it = members.find(key);
        if (it == members.end())
        {
            throw std::runtime_error("no key \"" + key + "\"");
        }
        return it->second;
    }

    double Number(const std::string& key) const
    {
        const Json& v = (*this)[key];
        if (v.kind != NUMBER)
        {
            throw std::runtime_error("\"" + key + "\" is not a number");
        }
        return v.number;
    }

    uint64_t Unsigned(const std::string& key) const
    {
        const double x = Number(key);
        if (x < 0 || x != std::floor(x))
        {
            throw std::runtime_error("\"" + key + "\" is not a whole number");
        }
        return static_cast<uint64_t>(x);
    }

    bool Bool(const std::string& key) const
    {
        const Json& v = (*this)[key];
        if (v.kind != BOOLEAN)
        {
            throw std::runtime_error("\"" + key + "\" is not a boolean");
        }
        return v.boolean;
    }

    std::string Text(const std::string& key) const
    {
        const Json& v = (*this)[key];
        if (v.kind != STRING)
        {
            throw std::runtime_error("\"" + key + "\" is not a string");
        }
        return v.text;
    }
};

/** A recursive-descent reader for one line (no arrays: the vectors have none). */
class JsonReader
{
  public:
    explicit JsonReader(const std::string& line)
        : m_s(line)
    {
    }

    Json Read()
    {
        Json v = Value();
        Blanks();
        if (m_i != m_s.size())
        {
            Fail("text after the value");
        }
        return v;
    }

  private:
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::runtime_error(what + " at column " + std::to_string(m_i + 1));
    }

    void Blanks()
    {
        while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i])))
        {
            ++m_i;
        }
    }

    bool Literal(const char* word)
    {
        const std::string w(word);
        if (m_s.compare(m_i, w.size(), w) == 0)
        {
            m_i += w.size();
            return true;
        }
        return false;
    }

    std::string String()
    {
        std::string out;
        ++m_i; // the opening quote
        while (m_i < m_s.size() && m_s[m_i] != '"')
        {
            if (m_s[m_i] == '\\' && m_i + 1 < m_s.size())
            {
                ++m_i;
                const char c = m_s[m_i];
                out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
            }
            else
            {
                out += m_s[m_i];
            }
            ++m_i;
        }
        if (m_i == m_s.size())
        {
            Fail("unterminated string");
        }
        ++m_i;
        return out;
    }

    Json Value()
    {
        Blanks();
        Json v;
        if (m_i == m_s.size())
        {
            Fail("missing value");
        }
        const char c = m_s[m_i];
        if (c == '{')
        {
            v.kind = Json::OBJECT;
            ++m_i;
            Blanks();
            if (m_i < m_s.size() && m_s[m_i] == '}')
            {
                ++m_i;
                return v;
            }
            while (true)
            {
                Blanks();
                if (m_i >= m_s.size() || m_s[m_i] != '"')
                {
                    Fail("expected a key");
                }
                const std::string key = String();
                Blanks();
                if (m_i >= m_s.size() || m_s[m_i] != ':')
                {
                    Fail("expected ':'");
                }
                ++m_i;
                v.members[key] = Value();
                Blanks();
                if (m_i < m_s.size() && m_s[m_i] == ',')
                {
                    ++m_i;
                    continue;
                }
                if (m_i < m_s.size() && m_s[m_i] == '}')
                {
                    ++m_i;
                    return v;
                }
                Fail("expected ',' or '}'");
            }
        }
        if (c == '"')
        {
            v.kind = Json::STRING;
            v.text = String();
            return v;
        }
        if (Literal("true") || Literal("false"))
        {
            v.kind = Json::BOOLEAN;
            v.boolean = m_s[m_i - 1] == 'e' && m_s[m_i - 2] == 'u';
            return v;
        }
        if (Literal("null"))
        {
            return v;
        }
        const char* start = m_s.c_str() + m_i;
        char* end = nullptr;
        v.number = std::strtod(start, &end);
        if (end == start)
        {
            Fail("unexpected character");
        }
        v.kind = Json::NUMBER;
        m_i += static_cast<size_t>(end - start);
        return v;
    }

    const std::string& m_s;
    size_t m_i{0};
};

/** Where the vectors are: $WESTWOOD_VECTORS, else the directory the build names. */
std::filesystem::path
VectorsDir()
{
    if (const char* dir = std::getenv("WESTWOOD_VECTORS"))
    {
        return dir;
    }
#ifdef WESTWOOD_VECTORS_DIR
    return WESTWOOD_VECTORS_DIR;
#else
    return "test/vectors";
#endif
}

/** A gain in [0, 1] that the core keeps in thousandths must be a whole number of them. */
double
PermilleGain(const Json& params, const std::string& key)
{
    const double x = params.Number(key);
    const double permille = std::round(x * 1000.0);
    if (std::abs(x * 1000.0 - permille) > 1e-9)
    {
        throw std::runtime_error("\"" + key + "\" is not a whole number of thousandths");
    }
    return x;
}

/** The ns-3 class of a vector folder, with the header's parameters as its attributes. */
Ptr<TcpwCongestionOps>
Build(const std::string& variant, const Json& params)
{
    if (variant == "westwood" || variant == "westwood-interval" || variant == "westwood-acked-ucla")
    {
        Ptr<Tcpw> cc = CreateObject<Tcpw>();
        cc->SetAttribute("Tau", TimeValue(MicroSeconds(params.Unsigned("tau_us"))));
        cc->SetAttribute("M", UintegerValue(params.Unsigned("m")));
        // Folders older than the option have no "sample": the trapezoid.
        const std::string sample = params.Has("sample") ? params.Text("sample") : "trapezoid";
        cc->SetAttribute("Sample", StringValue(sample));
        if (params.Has("acked_count"))
        {
            cc->SetAttribute("AckedCount", StringValue(params.Text("acked_count")));
        }
        return cc;
    }
    if (variant == "westwood-ucla")
    {
        // The factor's start, steps and bound are the core's constants (0, 0.25 / 1, 4).
        if (params.Number("initial_reduction_factor") != 0.0 ||
            params.Number("reduction_step_dupacks") != 0.25 ||
            params.Number("reduction_step_timeout") != 1.0 ||
            params.Number("max_reduction_factor") != 4.0)
        {
            throw std::runtime_error("reduction factor rules other than the core's 0 / 0.25 / 1 / 4");
        }
        Ptr<TcpwUcla> cc = CreateObject<TcpwUcla>();
        cc->SetAttribute("Filter", UintegerValue(params.Unsigned("filter_type")));
        cc->SetAttribute("Tau", TimeValue(MicroSeconds(params.Unsigned("tau_us"))));
        cc->SetAttribute("Alpha", DoubleValue(params.Number("fr_alpha")));
        cc->SetAttribute("Tick", TimeValue(MicroSeconds(params.Unsigned("tick_us"))));
        cc->SetAttribute("InitialRttMin",
                         TimeValue(MicroSeconds(params.Unsigned("initial_rtt_min_us"))));
        cc->SetAttribute("Sample", StringValue(params.Text("sample")));
        cc->SetAttribute("AckedCount", StringValue(params.Text("acked_count")));
        return cc;
    }
    if (variant == "westwood-tr")
    {
        // The factor's steps and bound are the core's constants (0.25, 1, at most 4).
        if (params.Number("reduction_step_dupacks") != 0.25 ||
            params.Number("reduction_step_timeout") != 1.0 ||
            params.Number("max_reduction_factor") != 4.0)
        {
            throw std::runtime_error("reduction steps other than the core's 0.25 / 1 / 4");
        }
        Ptr<TcpwTr> cc = CreateObject<TcpwTr>();
        cc->SetAttribute("Ratio", UintegerValue(params.Unsigned("time_constant_ratio")));
        return cc;
    }
    if (variant == "westwood-abse")
    {
        Ptr<TcpwAbse> cc = CreateObject<TcpwAbse>();
        cc->SetAttribute("TMin", TimeValue(MicroSeconds(params.Unsigned("t_min_us"))));
        cc->SetAttribute("N", UintegerValue(params.Unsigned("n")));
        cc->SetAttribute("Epsilon", DoubleValue(PermilleGain(params, "epsilon")));
        cc->SetAttribute("Beta", DoubleValue(PermilleGain(params, "beta")));
        if (params.Has("u_max_bps"))
        {
            cc->SetAttribute("UMax",
                             DataRateValue(DataRate(static_cast<uint64_t>(
                                 std::llround(params.Number("u_max_bps"))))));
        }
        return cc;
    }
    if (variant == "westwood-plus")
    {
        Ptr<TcpwPlus> cc = CreateObject<TcpwPlus>();
        cc->SetAttribute("MinWindow", TimeValue(MicroSeconds(params.Unsigned("min_window_us"))));
        return cc;
    }
    throw std::runtime_error("no ns-3 class for variant " + variant);
}

/** One vector file through one ns-3 class. */
class TcpwVectorTestCase : public TestCase
{
  public:
    TcpwVectorTestCase(std::filesystem::path file, std::string variant)
        : TestCase(variant + " " + file.stem().string()),
          m_file(std::move(file)),
          m_variant(std::move(variant))
    {
    }

  private:
    /** The sender's window by the vectors' rules, in segments (crates/bpf-core's wwc_reno). */
    struct Window
    {
        uint32_t cwnd{1};
        uint32_t ssthresh{2};
        uint32_t count{0}; //!< ACKs towards the next segment in congestion avoidance

        void Set(uint32_t c, uint32_t s)
        {
            cwnd = std::max(c, 1U);
            ssthresh = std::max(s, 2U);
            count = 0;
        }

        void Grow()
        {
            if (cwnd < ssthresh)
            {
                ++cwnd;
                count = 0;
            }
            else if (++count >= cwnd)
            {
                count -= cwnd;
                ++cwnd;
            }
        }
    };

    void DoRun() override
    {
        std::ifstream in(m_file);
        NS_TEST_ASSERT_MSG_EQ(in.good(), true, "cannot read " << m_file);
        std::string line;
        std::getline(in, line);
        try
        {
            m_header = JsonReader(line).Read();
            m_mss = static_cast<uint32_t>(m_header.Unsigned("mss"));
            m_initialSsthresh = m_header.Unsigned("initial_ssthresh");
            m_cc = Build(m_variant, m_header["params"]);
            while (std::getline(in, line))
            {
                if (!line.empty())
                {
                    m_lines.push_back(JsonReader(line).Read());
                }
            }
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, m_file << ": " << e.what());
        }
        NS_TEST_ASSERT_MSG_EQ(m_lines.size(),
                              m_header.Unsigned("events"),
                              m_file << ": the header's event count");

        m_tcb = CreateObject<TcpSocketState>();
        m_tcb->m_segmentSize = m_mss;
        m_window.Set(static_cast<uint32_t>(m_header.Unsigned("initial_cwnd") / m_mss),
                     static_cast<uint32_t>(std::min<uint64_t>(m_initialSsthresh / m_mss, UINT32_MAX)));
        SyncTcb();
        m_cc->Init(m_tcb);
        for (size_t i = 0; i < m_lines.size(); ++i)
        {
            const uint64_t t = m_lines[i]["event"].Unsigned("time_us");
            Simulator::Schedule(MicroSeconds(static_cast<int64_t>(t)),
                                &TcpwVectorTestCase::Apply,
                                this,
                                i);
        }
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(m_applied, m_lines.size(), m_file << ": events replayed");
    }

    /** The socket's view of the window, as ns-3 would hold it before calling a hook. */
    void SyncTcb()
    {
        m_tcb->m_cWnd = m_window.cwnd * m_mss;
        m_tcb->m_ssThresh =
            static_cast<uint32_t>(std::min<uint64_t>(uint64_t{m_window.ssthresh} * m_mss, UINT32_MAX));
    }

    void Apply(size_t i)
    {
        if (m_failed)
        {
            return;
        }
        const Json& event = m_lines[i]["event"];
        const std::string kind = event.Text("kind");
        const size_t lineNo = i + 2;
        SyncTcb();
        if (kind == "ack")
        {
            m_tcb->m_lastAckedSeq = SequenceNumber32(static_cast<uint32_t>(event.Unsigned("ack")));
            const Time rtt = event.Has("rtt_us") ? MicroSeconds(event.Unsigned("rtt_us")) : Time(0);
            const bool dupack = event.Bool("dupack");
            m_cc->PktsAcked(m_tcb, 1, rtt);
            if (!dupack && !event.Bool("in_recovery") && event.Unsigned("acked_bytes") > 0)
            {
                m_window.Grow();
            }
        }
        else if (kind == "dupacks")
        {
            m_cc->CongestionStateSet(m_tcb, TcpSocketState::CA_RECOVERY);
            m_tcb->m_congState = TcpSocketState::CA_RECOVERY;
            const uint32_t ssthresh =
                m_cc->GetSsThresh(m_tcb, static_cast<uint32_t>(event.Unsigned("in_flight"))) / m_mss;
            if (m_variant == "westwood-ucla" && m_window.cwnd <= ssthresh)
            {
                // The agent lowers only a window above the threshold, and one it leaves alone
                // keeps its progress towards the next segment (ns-2's window is a double).
                m_window.ssthresh = std::max(ssthresh, 2U);
            }
            else
            {
                m_window.Set(std::min(m_window.cwnd, ssthresh), ssthresh);
            }
        }
        else if (kind == "timeout")
        {
            const uint32_t ssthresh =
                m_cc->GetSsThresh(m_tcb, static_cast<uint32_t>(event.Unsigned("in_flight"))) / m_mss;
            m_cc->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_LOSS);
            m_cc->CongestionStateSet(m_tcb, TcpSocketState::CA_LOSS);
            m_tcb->m_congState = TcpSocketState::CA_LOSS;
            m_window.Set(1, ssthresh);
        }
        else if (kind == "recovery_exit")
        {
            m_cc->CongestionStateSet(m_tcb, TcpSocketState::CA_OPEN);
            m_tcb->m_congState = TcpSocketState::CA_OPEN;
        }
        else
        {
            Fail("unknown event kind " + kind);
            return;
        }
        ++m_applied;
        Compare(lineNo, kind, m_lines[i]["state"]);
    }

    void Compare(size_t lineNo, const std::string& kind, const Json& state)
    {
        std::ostringstream where;
        where << m_file.filename().string() << ":" << lineNo << " (" << kind << " at "
              << Simulator::Now().GetMicroSeconds() << " us)";
        const double want = state.Number("bwe_bps");
        const double got = m_cc->GetBandwidthEstimate();
        const double tolerance = std::max(0.01 * std::abs(want), 100.0);
        if (std::abs(got - want) > tolerance)
        {
            std::ostringstream msg;
            msg << where.str() << ": BWE " << got << " b/s, reference " << want << " b/s";
            Fail(msg.str());
            return;
        }
        const uint64_t cwnd = uint64_t{m_window.cwnd} * m_mss;
        const uint64_t ssthresh = uint64_t{m_window.ssthresh} * m_mss;
        if (cwnd != state.Unsigned("cwnd"))
        {
            Fail(where.str() + ": cwnd " + std::to_string(cwnd) + ", reference " +
                             std::to_string(state.Unsigned("cwnd")));
            return;
        }
        if (state.Unsigned("ssthresh") != m_initialSsthresh && ssthresh != state.Unsigned("ssthresh"))
        {
            Fail(where.str() + ": ssthresh " + std::to_string(ssthresh) + ", reference " +
                             std::to_string(state.Unsigned("ssthresh")));
            return;
        }
        const int64_t rttMin = m_cc->GetRttMin().GetMicroSeconds();
        const int64_t wantRttMin =
            state.Has("rtt_min_us") ? static_cast<int64_t>(state.Unsigned("rtt_min_us")) : 0;
        if (rttMin != wantRttMin)
        {
            Fail(where.str() + ": RTTmin " + std::to_string(rttMin) + " us, reference " +
                             std::to_string(wantRttMin));
        }
    }

    void Fail(const std::string& message)
    {
        m_failed = true;
        NS_TEST_EXPECT_MSG_EQ(true, false, message);
        Simulator::Stop();
    }

    std::filesystem::path m_file;
    std::string m_variant;
    Json m_header;
    std::vector<Json> m_lines;
    uint32_t m_mss{0};
    uint64_t m_initialSsthresh{0};
    Ptr<TcpwCongestionOps> m_cc;
    Ptr<TcpSocketState> m_tcb;
    Window m_window;
    size_t m_applied{0};
    bool m_failed{false};
};

/** A missing vectors directory is a failure that says where it looked. */
class MissingVectorsTestCase : public TestCase
{
  public:
    explicit MissingVectorsTestCase(std::string message)
        : TestCase("vectors"),
          m_message(std::move(message))
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(true, false, m_message);
    }

    std::string m_message;
};

class TcpwVectorsTestSuite : public TestSuite
{
  public:
    TcpwVectorsTestSuite()
        // The defaults (a unit test, quick cases): their enums' spelling changed in ns-3.41.
        : TestSuite("tcpw-vectors")
    {
        const std::filesystem::path dir = VectorsDir();
        // Every folder of the vectors but Reno's.
        const char* variants[] = {"westwood",
                                  "westwood-interval",
                                  "westwood-acked-ucla",
                                  "westwood-tr",
                                  "westwood-abse",
                                  "westwood-plus",
                                  "westwood-ucla"};
        for (const char* variant : variants)
        {
            std::vector<std::filesystem::path> files;
            std::error_code error;
            for (const auto& entry : std::filesystem::directory_iterator(dir / variant, error))
            {
                if (entry.path().extension() == ".jsonl")
                {
                    files.push_back(entry.path());
                }
            }
            if (files.empty())
            {
                AddTestCase(new MissingVectorsTestCase(
                                "no vectors in " + (dir / variant).string() +
                                ": set WESTWOOD_VECTORS to the project's vectors/ directory"));
                return;
            }
            std::sort(files.begin(), files.end());
            for (const auto& file : files)
            {
                AddTestCase(new TcpwVectorTestCase(file, variant));
            }
        }
    }
};

TcpwVectorsTestSuite g_tcpwVectorsTestSuite; //!< registers the suite

} // namespace
