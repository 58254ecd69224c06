package io.jtrace.agent.trackevent;

import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TracePacket;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads packet timestamps back as CLOCK_MONOTONIC nanoseconds the way trace_processor does: per
 * sequence, the clock named by its trace_packet_defaults (unless the packet names one), and its
 * incremental clock set by the sequence's clock snapshots, each packet's value adding to the last.
 */
final class SequenceClocks {
    private final Map<Integer, Integer> defaultClock = new HashMap<>();
    /** Per sequence: the incremental clock's current value, and what it reads as on CLOCK_MONOTONIC. */
    private final Map<Integer, long[]> incremental = new HashMap<>();

    /** The packet's time on CLOCK_MONOTONIC, or -1 when it has no timestamp. Feed every packet in order. */
    long monotonic(TracePacket p) {
        int seq = p.getTrustedPacketSequenceId();
        if (p.hasTracePacketDefaults()) {
            defaultClock.put(seq, p.getTracePacketDefaults().getTimestampClockId());
        }
        if (p.hasClockSnapshot()) {
            Long base = null;
            Long monotonic = null;
            for (ClockSnapshot.Clock c : p.getClockSnapshot().getClocksList()) {
                if (c.getClockId() == SequenceHeader.INCREMENTAL_CLOCK_ID && c.getIsIncremental()) {
                    base = c.getTimestamp();
                } else if (c.getClockId() == BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE) {
                    monotonic = c.getTimestamp();
                }
            }
            if (base == null || monotonic == null) {
                throw new AssertionError("a sequence's clock snapshot without its incremental clock or CLOCK_MONOTONIC: " + p);
            }
            incremental.put(seq, new long[] {base, monotonic - base});
        }
        if (!p.hasTimestamp()) {
            return -1;
        }
        int clock = p.hasTimestampClockId() ? p.getTimestampClockId()
                : defaultClock.getOrDefault(seq, BuiltinClock.BUILTIN_CLOCK_BOOTTIME_VALUE);
        if (clock == BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE) {
            return p.getTimestamp();
        }
        if (clock == SequenceHeader.INCREMENTAL_CLOCK_ID) {
            long[] state = incremental.get(seq);
            if (state == null) {
                throw new AssertionError("a delta timestamp before its sequence's clock snapshot: " + p);
            }
            state[0] += p.getTimestamp();
            return state[0] + state[1];
        }
        throw new AssertionError("timestamp on clock " + clock + ": " + p);
    }
}
