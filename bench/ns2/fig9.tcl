# fig9.tcl -- one point of seed 000's figure 9 for ns-2.35, as
#   westwood run wireless --set cc=reno --set loss=1% --set duration=600s
# runs it, to time the two simulators on the same work (docs/performance.md).
#
# Run:  ns bench/ns2/fig9.tcl ?LOSS? ?DURATION?     (defaults 0.01 and 600)
# Prints one line: the Reno flow's goodput (b/s), data packets sent, retransmissions, timeouts.
#
#   src --(10 Mb/s, 45 ms)-- base --(2 Mb/s, 0.01 ms, Bernoulli errors both ways)-- mobile
#
# As scenarios/wireless.toml sets it: 400-byte segments (440 on the wire, 40-byte ACKs), one
# Reno flow from 0 s, delayed ACKs (Agent/TCPSink/DelAck, every second segment or 100 ms),
# buffers of one bandwidth-delay product (256 packets waiting on the wired link, 52 on the
# wireless one; ns-2's DropTail keeps queue-limit - 1 waiting), a receiver window that never
# limits, each packet on the wireless hop lost with probability LOSS in each direction (an
# ErrorModel after the link, on its own random stream per direction). The full model of the
# authors' set-up, with seeds and the UCLA agents, is described in docs/westwood.md ("Cross-check
# against the agents on ns-2.35"); this is its Reno case, stripped to time it.

set loss 0.01
set duration 600.0
if {$argc >= 1} { set loss [lindex $argv 0] }
if {$argc >= 2} { set duration [lindex $argv 1] }
set payload 400
set header 40

set ns [new Simulator]

set src    [$ns node]
set base   [$ns node]
set mobile [$ns node]
$ns duplex-link $src $base 10Mb 45ms DropTail
$ns duplex-link $base $mobile 2Mb 0.01ms DropTail
$ns queue-limit $src $base 257
$ns queue-limit $base $src 257
$ns queue-limit $base $mobile 53
$ns queue-limit $mobile $base 53

proc bernoulli {p} {
	set em [new ErrorModel]
	$em unit pkt
	$em set rate_ $p
	set rv [new RandomVariable/Uniform]
	$rv use-rng [new RNG]
	$em ranvar $rv
	$em drop-target [new Agent/Null]
	return $em
}
if {$loss > 0} {
	$ns link-lossmodel [bernoulli $loss] $base $mobile
	$ns link-lossmodel [bernoulli $loss] $mobile $base
}

set tcp [new Agent/TCP/Reno]
$tcp set packetSize_ $payload
$tcp set window_ 10000
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $src $tcp
$ns attach-agent $mobile $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
	global tcp sink duration payload header loss
	set pkts [expr {([$sink set bytes_] - $header) / ($payload + $header)}]
	if {$pkts < 0} { set pkts 0 }
	puts [format "loss=%s duration=%s goodput_bps=%.1f datapkts_sent=%d rexmit_pkts=%d timeouts=%d" \
		$loss $duration [expr {$pkts * $payload * 8.0 / $duration}] [$tcp set ndatapack_] \
		[$tcp set nrexmitpack_] [$tcp set nrexmit_]]
	exit 0
}
$ns at $duration "finish"
$ns run
