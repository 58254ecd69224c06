package io.jtrace.benchmarks.agent.flood;

import io.jtrace.benchmarks.agent.wire.TraceFile;
import io.jtrace.benchmarks.agent.wire.Wire;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a jtrace trace file holds, read at the protobuf wire level (this jar carries no jtrace classes):
 * slice begins and ends on the sequences that interned the flood's category (not, say, the GC's), the
 * begins timed within a window of CLOCK_MONOTONIC, the agent's {@code jtrace: lost track events}
 * counter, packets flagged {@code previous_packet_dropped}, and packets trace_processor would skip
 * because their sequence's incremental state is not valid (after a loss, before the sequence's next
 * INCREMENTAL_STATE_CLEARED), or misread: jtrace's small events leave NEEDS_INCREMENTAL_STATE to their
 * chunk, so an event that uses interned iids, the sequence's delta clock or its default track counts
 * whether flagged or not.
 */
record PerfettoTraceCount(long begins, long ends, long beginsInWindow, long lostCounter, long droppedFlags,
                          long undecodable) {
    private static final String LOST_TRACK = "jtrace: lost track events";
    private static final int MONOTONIC = 3;
    /** The clock of a packet that names none on a sequence without defaults: Perfetto's trace clock. */
    private static final int BOOTTIME = 6;
    private static final int INCREMENTAL_CLOCK = 64;

    /** {@code windowFrom} (inclusive) and {@code windowTo} (exclusive): CLOCK_MONOTONIC ns ({@code System.nanoTime()}). */
    static PerfettoTraceCount of(Path file, String category, long windowFrom, long windowTo) throws IOException {
        Counting counting = new Counting(category, windowFrom, windowTo);
        TraceFile.forEachPacket(file, counting::accept);
        long lost = -1;
        if (counting.lostTrack != null && counting.counterValues.containsKey(counting.lostTrack)) {
            lost = counting.counterValues.get(counting.lostTrack);
        }
        long begins = 0;
        long ends = 0;
        long beginsInWindow = 0;
        for (Map.Entry<Long, long[]> e : counting.slices.entrySet()) {
            if (counting.counted.contains(e.getKey())) {
                begins += e.getValue()[0];
                ends += e.getValue()[1];
                beginsInWindow += e.getValue()[2];
            }
        }
        return new PerfettoTraceCount(begins, ends, beginsInWindow, lost, counting.dropped, counting.undecodable);
    }

    /** The running count over the file's packets. */
    private static final class Counting {
        final String category;
        final long windowFrom;
        final long windowTo;
        /**
         * Per sequence: decodable begins, ends and begins within the window. Whether they are the flood's is
         * known only at the end: a thread whose first begins were all dropped has ends in the file before
         * its sequence interns the flood's category.
         */
        final Map<Long, long[]> slices = new HashMap<>();
        long dropped;
        long undecodable;
        Long lostTrack; // a uint64 uuid: any long, negative ones included
        final Map<Long, Boolean> valid = new HashMap<>();
        final Set<Long> counted = new HashSet<>();
        final Map<Long, Long> counterValues = new HashMap<>();
        /** Per sequence: its default timestamp clock and the incremental clock's value (Perfetto's rules). */
        final Map<Long, long[]> clocks = new HashMap<>();

        Counting(String category, long windowFrom, long windowTo) {
            this.category = category;
            this.windowFrom = windowFrom;
            this.windowTo = windowTo;
        }

        void accept(byte[] packet) {
            Packet p = Packet.parse(packet);
            long time = time(p);
            if (p.previousPacketDropped) {
                dropped++;
                valid.put(p.sequenceId, false);
            }
            if ((p.sequenceFlags & 1) != 0) {
                valid.put(p.sequenceId, true);
            }
            boolean usesState = (p.sequenceFlags & 2) != 0
                    || p.eventType != 0 && (p.usesIids || p.onSequenceClock || !p.namesItsTrack);
            if (usesState && !valid.getOrDefault(p.sequenceId, false)) {
                undecodable++;
                return;
            }
            if (p.internedCategories.contains(category)) {
                counted.add(p.sequenceId);
            }
            if (LOST_TRACK.equals(p.trackName)) {
                lostTrack = p.trackUuid;
            }
            switch (p.eventType) {
                case 1 -> {
                    long[] c = slices.computeIfAbsent(p.sequenceId, id -> new long[3]);
                    c[0]++;
                    c[2] += time >= windowFrom && time < windowTo ? 1 : 0;
                }
                case 2 -> slices.computeIfAbsent(p.sequenceId, id -> new long[3])[1]++;
                case 4 -> counterValues.put(p.eventTrack, p.counterValue);
                default -> { }
            }
        }

        /**
         * The packet's CLOCK_MONOTONIC time (-1 if it has none): its timestamp on the clock it names, else
         * on its sequence's default clock; on the sequence's incremental clock, a delta from the previous one.
         */
        private long time(Packet p) {
            long[] clock = clocks.computeIfAbsent(p.sequenceId, id -> new long[] {BOOTTIME, 0});
            if ((p.sequenceFlags & 1) != 0) {
                // INCREMENTAL_STATE_CLEARED: the defaults go with the rest of the incremental state.
                clock[0] = BOOTTIME;
            }
            if (p.defaultClockId >= 0) {
                clock[0] = p.defaultClockId;
            }
            if (p.incrementalBase >= 0) {
                clock[1] = p.incrementalBase;
            }
            if (p.timestamp < 0) {
                return -1;
            }
            long clockId = p.clockId >= 0 ? p.clockId : clock[0];
            p.onSequenceClock = clockId == INCREMENTAL_CLOCK;
            if (clockId == INCREMENTAL_CLOCK) {
                clock[1] += p.timestamp;
                return clock[1];
            }
            return clockId == MONOTONIC ? p.timestamp : -1;
        }
    }

    /** The few fields of a TracePacket the count needs. */
    private static final class Packet {
        long sequenceId;
        long sequenceFlags;
        boolean previousPacketDropped;
        int eventType;
        /** The event names or categorizes itself by interned iids. */
        boolean usesIids;
        /** Its timestamp is a delta on its sequence's incremental clock. */
        boolean onSequenceClock;
        /** The event names its track (else it goes on its sequence's default track). */
        boolean namesItsTrack;
        long eventTrack;
        long counterValue;
        long trackUuid;
        String trackName;
        long timestamp = -1;
        long clockId = -1;
        long defaultClockId = -1;
        /** The incremental clock's value in this packet's clock snapshot; -1 if none. */
        long incrementalBase = -1;
        /** All of them: one packet may intern several, the flood's among others. */
        final List<String> internedCategories = new ArrayList<>(1);

        static Packet parse(byte[] b) {
            Packet p = new Packet();
            Wire w = new Wire(b, 0, b.length);
            while (w.more()) {
                int field = w.field();
                switch (field) {
                    case 10 -> p.sequenceId = w.varint();
                    case 8 -> p.timestamp = w.varint();
                    case 58 -> p.clockId = w.varint();
                    case 59 -> {
                        Wire d = w.nested();
                        while (d.more()) {
                            if (d.field() == 58) {
                                p.defaultClockId = d.varint();
                            } else {
                                d.skip();
                            }
                        }
                    }
                    case 6 -> {
                        Wire snapshot = w.nested();
                        while (snapshot.more()) {
                            if (snapshot.field() == 1) {
                                incrementalClock(snapshot.nested(), p);
                            } else {
                                snapshot.skip();
                            }
                        }
                    }
                    case 13 -> p.sequenceFlags = w.varint();
                    case 42 -> p.previousPacketDropped = w.varint() != 0;
                    case 11 -> {
                        Wire e = w.nested();
                        while (e.more()) {
                            switch (e.field()) {
                                case 9 -> p.eventType = (int) e.varint();
                                case 3, 10 -> {
                                    p.usesIids = true;
                                    e.skip();
                                }
                                case 11 -> {
                                    p.eventTrack = e.varint();
                                    p.namesItsTrack = true;
                                }
                                case 30 -> p.counterValue = e.varint();
                                default -> e.skip();
                            }
                        }
                    }
                    case 12 -> {
                        Wire interned = w.nested();
                        while (interned.more()) {
                            if (interned.field() == 1) {
                                Wire c = interned.nested();
                                while (c.more()) {
                                    if (c.field() == 2) {
                                        p.internedCategories.add(c.string());
                                    } else {
                                        c.skip();
                                    }
                                }
                            } else {
                                interned.skip();
                            }
                        }
                    }
                    case 60 -> {
                        Wire d = w.nested();
                        while (d.more()) {
                            switch (d.field()) {
                                case 1 -> p.trackUuid = d.varint();
                                case 2 -> p.trackName = d.string();
                                default -> d.skip();
                            }
                        }
                    }
                    default -> w.skip();
                }
            }
            return p;
        }

        private static void incrementalClock(Wire clock, Packet p) {
            long id = -1;
            long timestamp = 0;
            boolean incremental = false;
            while (clock.more()) {
                switch (clock.field()) {
                    case 1 -> id = clock.varint();
                    case 2 -> timestamp = clock.varint();
                    case 3 -> incremental = clock.varint() != 0;
                    default -> clock.skip();
                }
            }
            if (id == INCREMENTAL_CLOCK && incremental) {
                p.incrementalBase = timestamp;
            }
        }
    }
}
