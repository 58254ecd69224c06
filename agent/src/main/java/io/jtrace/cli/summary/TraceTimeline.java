package io.jtrace.cli.summary;

import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TracePacket;
import java.util.HashMap;
import java.util.Map;

/**
 * The first and last timestamp of a trace on its trace clock (BOOTTIME, unless a clock snapshot names
 * another {@code primary_trace_clock}), placing each packet's timestamp the way trace_processor does:
 * its {@code timestamp_clock_id}, else its sequence's {@code trace_packet_defaults}, else the trace
 * clock; a sequence-scoped clock (ids 64-127, jtrace's track_event sequences) through its sequence's
 * clock snapshot, adding deltas when it is incremental; any other clock through a clock snapshot that
 * has it and the trace clock. Memory: a few numbers per clock and per sequence.
 *
 * <p>Per clock only the smallest and largest raw value are kept and converted at the end with the first
 * snapshot relating that clock to the trace clock: for a summary, the drift of a suspended machine
 * between snapshots does not matter.
 */
final class TraceTimeline {
    /** Timestamps with no clock of their own: the trace clock, whichever it turns out to be. */
    private static final int TRACE_DEFAULT = -1;
    private static final int REALTIME = BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE;

    /** A sequence's clock state, reset when it clears its incremental state. */
    private static final class SequenceClock {
        int defaultClock = TRACE_DEFAULT;
        int scopedClock = -1;
        boolean incremental;
        long scopedValue;
        /** The global clock the scoped one is tied to, and that clock's value minus the scoped clock's. */
        int baseClock;
        long baseMinusScoped;
    }

    private final Map<Integer, SequenceClock> sequences = new HashMap<>();
    /** Per clock: {smallest, largest} raw value seen. */
    private final Map<Integer, long[]> ranges = new HashMap<>();
    /** Per global clock: the trace clock's value minus this clock's, from the first snapshot having both. */
    private final Map<Integer, Long> toTraceClock = new HashMap<>();
    private int traceClock = BuiltinClock.BUILTIN_CLOCK_BOOTTIME_VALUE;
    private boolean traceClockNamed;
    private Long realtimeMinusTraceClock;
    private long unplaced;

    void packet(TracePacket p) {
        SequenceClock seq = sequences.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new SequenceClock());
        if ((p.getSequenceFlags() & SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED) != 0) {
            // Packet defaults and scoped clocks are incremental state: a clear forgets them.
            seq.defaultClock = TRACE_DEFAULT;
            seq.scopedClock = -1;
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTimestampClockId()) {
            seq.defaultClock = p.getTracePacketDefaults().getTimestampClockId();
        }
        if (p.hasClockSnapshot()) {
            snapshot(seq, p.getClockSnapshot());
        }
        if (!p.hasTimestamp()) {
            return;
        }
        int clock = p.hasTimestampClockId() ? p.getTimestampClockId() : seq.defaultClock;
        if (clock >= 64 && clock < 128) {
            if (clock != seq.scopedClock) {
                unplaced++; // a scoped clock no snapshot of this sequence defined
                return;
            }
            long value = seq.incremental ? (seq.scopedValue += p.getTimestamp()) : p.getTimestamp();
            record(seq.baseClock, value + seq.baseMinusScoped);
            return;
        }
        record(clock, p.getTimestamp());
    }

    private void snapshot(SequenceClock seq, ClockSnapshot snapshot) {
        if (snapshot.hasPrimaryTraceClock() && !traceClockNamed) {
            traceClockNamed = true;
            if (snapshot.getPrimaryTraceClock().getNumber() != traceClock) {
                traceClock = snapshot.getPrimaryTraceClock().getNumber();
                toTraceClock.clear();
                realtimeMinusTraceClock = null;
            }
        }
        Long trace = null;
        ClockSnapshot.Clock scoped = null;
        ClockSnapshot.Clock global = null;
        for (ClockSnapshot.Clock c : snapshot.getClocksList()) {
            if (c.getClockId() >= 64 && c.getClockId() < 128) {
                scoped = c;
            } else {
                if (c.getClockId() == traceClock) {
                    trace = c.getTimestamp();
                }
                if (global == null || c.getClockId() == traceClock) {
                    global = c;
                }
            }
        }
        if (scoped != null && global != null) {
            seq.scopedClock = scoped.getClockId();
            seq.incremental = scoped.getIsIncremental();
            seq.scopedValue = scoped.getTimestamp();
            seq.baseClock = global.getClockId();
            seq.baseMinusScoped = global.getTimestamp() - scoped.getTimestamp();
        }
        if (trace == null) {
            return;
        }
        for (ClockSnapshot.Clock c : snapshot.getClocksList()) {
            if (c.getClockId() < 64 || c.getClockId() >= 128) {
                toTraceClock.putIfAbsent(c.getClockId(), trace - c.getTimestamp());
            }
        }
        if (realtimeMinusTraceClock == null && toTraceClock.containsKey(REALTIME)) {
            realtimeMinusTraceClock = -toTraceClock.get(REALTIME);
        }
    }

    private void record(int clock, long value) {
        long[] range = ranges.computeIfAbsent(clock, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        range[0] = Math.min(range[0], value);
        range[1] = Math.max(range[1], value);
    }

    /** The span on the trace clock, or null when no timestamp could be placed. */
    Span span() {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long unplacedClocks = 0;
        for (Map.Entry<Integer, long[]> e : ranges.entrySet()) {
            int clock = e.getKey() == TRACE_DEFAULT ? traceClock : e.getKey();
            Long offset = clock == traceClock ? Long.valueOf(0) : toTraceClock.get(clock);
            if (offset == null) {
                unplacedClocks++;
                continue;
            }
            first = Math.min(first, e.getValue()[0] + offset);
            last = Math.max(last, e.getValue()[1] + offset);
        }
        if (first > last) {
            return null;
        }
        return new Span(traceClock, first, last, realtimeMinusTraceClock, unplaced, unplacedClocks);
    }

    /**
     * @param realtimeMinusClock REALTIME minus the trace clock, when a snapshot gave both (for wall-clock times)
     * @param unplacedTimestamps timestamps on a sequence-scoped clock nothing defined
     * @param unplacedClocks clocks no snapshot relates to the trace clock (their timestamps are left out)
     */
    record Span(int clock, long first, long last, Long realtimeMinusClock, long unplacedTimestamps,
                long unplacedClocks) {
        long durationNanos() {
            return last - first;
        }

        static String clockName(int clock) {
            BuiltinClock builtin = BuiltinClock.forNumber(clock);
            return builtin != null ? builtin.name().replace("BUILTIN_CLOCK_", "") : "clock " + clock;
        }
    }
}
