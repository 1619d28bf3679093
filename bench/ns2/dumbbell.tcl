# dumbbell.tcl -- scenarios/dumbbell.toml's default case for ns-2.35, to time the two simulators
# on the same work (docs/performance.md): 10 NewReno flows share a 45 Mb/s, 100 ms bottleneck for
# 60 simulated seconds.
#
# Run:  ns bench/ns2/dumbbell.tcl ?FLOWS? ?DURATION?     (defaults 10 and 60)
# Prints one line: flows, duration, aggregate goodput (Mb/s), Jain's fairness index.
#
#   senders --(1 Gb/s, 1 ms)-- left --(45 Mb/s, 100 ms)-- right --(1 Gb/s, 1 ms)-- receivers
#
# As the scenario sets it: 1000-byte segments (ns-2 adds 40 header bytes: 1040-byte packets,
# 40-byte ACKs), delayed ACKs every second segment or after 200 ms (Agent/TCPSink/DelAck), an
# initial window of 4 segments (RFC 5681 for 1000 B), RTO from 1 s, a receiver window that
# never limits (16 MB), all flows starting at 0. Buffers: the bottleneck's is one
# bandwidth-delay product, 45 Mb/s x 204 ms / 1040 B = 1104 packets waiting, as the
# simulator's `bdp` sizes it; ns-2's DropTail keeps queue-limit - 1 packets waiting, hence 1105.
# The 1 Gb/s links never queue much; their buffers are as large as the simulator's (24 520).

set flows 10
set duration 60.0
if {$argc >= 1} { set flows [lindex $argv 0] }
if {$argc >= 2} { set duration [lindex $argv 1] }
set payload 1000
set header 40

set ns [new Simulator]

set senders   [$ns node]
set left      [$ns node]
set right     [$ns node]
set receivers [$ns node]
$ns duplex-link $senders $left 1Gb 1ms DropTail
$ns duplex-link $left $right 45Mb 100ms DropTail
$ns duplex-link $right $receivers 1Gb 1ms DropTail
$ns queue-limit $left $right 1105
$ns queue-limit $right $left 1105
foreach {a b} [list $senders $left $left $senders $right $receivers $receivers $right] {
	$ns queue-limit $a $b 24521
}

Agent/TCPSink/DelAck set interval_ 0.2
for {set i 0} {$i < $flows} {incr i} {
	set tcp($i) [new Agent/TCP/Newreno]
	$tcp($i) set packetSize_ $payload
	$tcp($i) set window_ 16000
	$tcp($i) set windowInit_ 4
	$tcp($i) set minrto_ 1
	$tcp($i) set fid_ $i
	set sink($i) [new Agent/TCPSink/DelAck]
	$ns attach-agent $senders $tcp($i)
	$ns attach-agent $receivers $sink($i)
	$ns connect $tcp($i) $sink($i)
	set ftp($i) [new Application/FTP]
	$ftp($i) attach-agent $tcp($i)
	$ns at 0.0 "$ftp($i) start"
}

proc finish {} {
	global flows sink duration payload header
	set total 0.0
	set squares 0.0
	for {set i 0} {$i < $flows} {incr i} {
		# in-order packets delivered (DelAck's bytes_ counts whole packets and the 40-byte SYN)
		set pkts [expr {([$sink($i) set bytes_] - $header) / ($payload + $header)}]
		set goodput [expr {$pkts * $payload * 8.0 / $duration}]
		set total [expr {$total + $goodput}]
		set squares [expr {$squares + $goodput * $goodput}]
	}
	set jain [expr {$squares > 0 ? $total * $total / ($flows * $squares) : 0}]
	puts [format "flows=%d duration=%s aggregate_goodput_mbps=%.3f jain=%.4f" \
		$flows $duration [expr {$total / 1e6}] $jain]
	exit 0
}
$ns at $duration "finish"
$ns run
