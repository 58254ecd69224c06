package io.jtrace.it.trace;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Decodes track events the way trace_processor does for the parts jtrace writes, one packet at a time:
 * per-sequence interning, packet defaults and incremental clocks, track descriptors, and begin/end
 * matched per track uuid into slices. Packets, track descriptors, counters and events go to the
 * {@link Listener} as they are read; a track's begins and ends are kept (two primitive columns per
 * track) and paired into slices at {@link #finish()}.
 *
 * <p>Why only at the end: a track's events can come from several sequences (a virtual thread writes
 * through whichever pooled sequence it claims, so one slice may begin on one and end on another), and
 * the file holds sequences' chunks in the order the service read them, not in time order. Until the
 * last packet, another sequence may still bring an edge that lies between edges already read, and
 * pairing any earlier can pair wrongly. Seen in JfrVirtualThreadsTest under load: a virtual thread's
 * slices 1 and 2, sequence B (read first) holding only the end E2, sequence A holding B1, E1, B2;
 * pairing as soon as the edges held balanced made B1..E2 one slice and left E1 without a begin and B2
 * without an end, where trace_processor shows both slices. trace_processor, given a trace without the
 * service's flush and read-buffer events (jtrace writes none), sorts the whole trace by timestamp
 * (ties in file order) before it parses it, and its slice tracker ends the innermost open slice of the
 * end's track: so does {@link #finish()}.
 *
 * <p>Like trace_processor, a sequence that lost data ({@code previous_packet_dropped}) has unusable
 * incremental state until its next {@code SEQ_INCREMENTAL_STATE_CLEARED}: events that need it in
 * between are skipped and counted, because the UI would not show them either. An event that uses that
 * state without the flag (jtrace's small events leave it to their chunk) counts too: trace_processor
 * would misread it, and the service must never let one through.
 */
public final class TrackEventDecoder implements TraceStream.PacketHandler {
    /** What the decoder found; every method is optional. */
    public interface Listener {
        default void packet(long index, TracePacket packet) {}

        default void track(TrackDescriptor descriptor) {}

        /** A slice whose begin and end were both seen on {@code track}; called from {@link #finish()}. */
        default void slice(long track, String name, List<String> categories, long begin, long end) {}

        default void counter(long track, double value, long timestamp) {}

        /** Every track event, with its name resolved (null for an end), its timestamp and its track. */
        default void event(long index, TrackEvent event, String name, long timestamp, long track) {}
    }

    private static final int MAX_PROBLEMS_KEPT = 50;

    private static final class Sequence {
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        long defaultTrack;
        /** A clear was seen and no loss since: interned state is usable. */
        boolean valid;
        /** The clock of its timestamps, from its trace_packet_defaults (the trace's BOOTTIME without). */
        int clockId = BOOTTIME;
        /** Its sequence-scoped incremental clock, if a clock snapshot set one: id, value, value - MONOTONIC. */
        int incrementalClock = -1;
        long incrementalValue;
        long monotonicMinusIncremental;

        /**
         * The packet's time: a delta on the incremental clock adds to the clock's last value (and is
         * turned into CLOCK_MONOTONIC); any other timestamp is taken as it is.
         */
        long timestamp(TracePacket p) {
            int clock = p.hasTimestampClockId() ? p.getTimestampClockId() : clockId;
            if (clock == incrementalClock) {
                incrementalValue += p.getTimestamp();
                return incrementalValue + monotonicMinusIncremental;
            }
            return p.getTimestamp();
        }

        void clockSnapshot(ClockSnapshot snapshot) {
            Long monotonic = null;
            ClockSnapshot.Clock incremental = null;
            for (ClockSnapshot.Clock c : snapshot.getClocksList()) {
                if (c.getClockId() == MONOTONIC) {
                    monotonic = c.getTimestamp();
                } else if (c.getClockId() >= 64 && c.getClockId() < 128 && c.getIsIncremental()) {
                    incremental = c;
                }
            }
            if (incremental != null && monotonic != null) {
                incrementalClock = incremental.getClockId();
                incrementalValue = incremental.getTimestamp();
                monotonicMinusIncremental = monotonic - incremental.getTimestamp();
            }
        }
    }

    private static final int MONOTONIC = 3;
    private static final int BOOTTIME = 6;

    /** What a begin names: kept once per distinct name and categories, and referred to by index. */
    private record Label(String name, List<String> categories) {}

    /**
     * A track's begins and ends in file order, held until {@link #finish()}: timestamps, and for each
     * edge the index of its begin's {@link Label}, or -1 for an end. Two primitive columns, so a
     * million virtual threads' tracks or a flood's millions of events on one track stay small.
     */
    private static final class PendingTrack {
        long[] timestamps = new long[2];
        int[] labels = new int[2];
        int size;
        /** Whether every edge so far is at or after the one before: sorting can then be skipped. */
        boolean inOrder = true;

        void add(long timestamp, int label) {
            if (size == timestamps.length) {
                timestamps = Arrays.copyOf(timestamps, size * 2);
                labels = Arrays.copyOf(labels, size * 2);
            }
            if (size > 0 && timestamp < timestamps[size - 1]) {
                inOrder = false;
            }
            timestamps[size] = timestamp;
            labels[size] = label;
            size++;
        }
    }

    private final Listener listener;
    private final Map<Integer, Sequence> sequences = new HashMap<>();
    /** Per track, in the order tracks first got an edge: its begins and ends, paired at {@link #finish()}. */
    private final Map<Long, PendingTrack> pending = new LinkedHashMap<>();
    private final List<Label> labels = new ArrayList<>();
    private final Map<Label, Integer> labelIndex = new HashMap<>();
    private final LossSummary.Builder losses = new LossSummary.Builder();
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
    private long packets;
    private long packetsWithoutSequenceId;
    private long eventsSkippedForLostState;
    private long unmatchedEnds;
    private long unendedSlices;
    private boolean finished;

    public TrackEventDecoder(Listener listener) {
        this.listener = listener;
    }

    /** Streams {@code file} through a new decoder and finishes it. */
    public static TrackEventDecoder decode(Path file, Listener listener) throws IOException {
        TrackEventDecoder decoder = new TrackEventDecoder(listener);
        TraceStream.forEachPacket(file, decoder);
        decoder.finish();
        return decoder;
    }

    @Override
    public void packet(long index, TracePacket p) {
        packets++;
        losses.packet(p);
        listener.packet(index, p);
        if (p.hasTrackDescriptor()) {
            listener.track(p.getTrackDescriptor());
        }
        if (!p.hasTrustedPacketSequenceId()) {
            packetsWithoutSequenceId++;
            return;
        }
        Sequence seq = sequences.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new Sequence());
        if (p.getPreviousPacketDropped() != 0) {
            seq.valid = false;
        }
        if ((p.getSequenceFlags() & 1) != 0) {
            // Packet defaults are incremental state too: a clear forgets them unless this packet sets new ones.
            seq.names.clear();
            seq.categories.clear();
            seq.defaultTrack = 0;
            seq.clockId = BOOTTIME;
            seq.incrementalClock = -1;
            seq.valid = true;
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTrackEventDefaults()) {
            seq.defaultTrack = p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid();
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTimestampClockId()) {
            seq.clockId = p.getTracePacketDefaults().getTimestampClockId();
        }
        if (p.hasClockSnapshot()) {
            seq.clockSnapshot(p.getClockSnapshot());
        }
        long timestamp = p.hasTimestamp() ? seq.timestamp(p) : 0;
        if (p.hasInternedData()) {
            for (EventName n : p.getInternedData().getEventNamesList()) {
                seq.names.put(n.getIid(), n.getName());
            }
            for (EventCategory c : p.getInternedData().getEventCategoriesList()) {
                seq.categories.put(c.getIid(), c.getName());
            }
        }
        if (p.hasTrackEvent()) {
            // A small event leaves NEEDS_INCREMENTAL_STATE to its chunk: one that uses the sequence's state
            // (interned iids, the delta clock, the default track) on a sequence without it is one
            // trace_processor would skip if flagged, and misread if not.
            if (!seq.valid && ((p.getSequenceFlags() & 2) != 0 || usesIncrementalState(p, seq))) {
                eventsSkippedForLostState++;
                problem("packet " + index + " needs incremental state its sequence "
                        + p.getTrustedPacketSequenceId() + " does not have (never cleared, or lost since)");
                return;
            }
            trackEvent(index, p, seq, timestamp);
        }
    }

    private static boolean usesIncrementalState(TracePacket p, Sequence seq) {
        TrackEvent e = p.getTrackEvent();
        // Clocks 64..127 are the sequence's own (Perfetto's sequence-scoped clocks): incremental state too.
        boolean onSequenceClock = p.hasTimestamp() && !p.hasTimestampClockId() && seq.clockId >= 64 && seq.clockId < 128;
        return e.hasNameIid() || e.getCategoryIidsCount() > 0 || !e.hasTrackUuid() || onSequenceClock;
    }

    private void trackEvent(long index, TracePacket p, Sequence seq, long timestamp) {
        TrackEvent e = p.getTrackEvent();
        long track = e.hasTrackUuid() ? e.getTrackUuid() : seq.defaultTrack;
        listener.event(index, e, e.hasName() ? e.getName() : e.hasNameIid() ? seq.names.get(e.getNameIid()) : null, timestamp, track);
        switch (e.getType()) {
            case TYPE_SLICE_BEGIN -> {
                String name = e.hasName() ? e.getName() : e.hasNameIid() ? seq.names.get(e.getNameIid()) : null;
                if (e.hasNameIid() && name == null) {
                    problem("packet " + index + " uses name iid " + e.getNameIid() + " never interned");
                }
                List<String> categories = new ArrayList<>(e.getCategoriesList());
                for (long iid : e.getCategoryIidsList()) {
                    categories.add(seq.categories.get(iid));
                }
                edge(track, timestamp, labelIndex.computeIfAbsent(new Label(name, categories), l -> {
                    labels.add(l);
                    return labels.size() - 1;
                }));
            }
            case TYPE_SLICE_END -> edge(track, timestamp, -1);
            case TYPE_COUNTER -> {
                double v = e.hasDoubleCounterValue() ? e.getDoubleCounterValue() : e.getCounterValue();
                listener.counter(track, v, timestamp);
            }
            default -> { }
        }
    }

    private void edge(long track, long timestamp, int label) {
        pending.computeIfAbsent(track, k -> new PendingTrack()).add(timestamp, label);
    }

    /**
     * Pairs every track's begins and ends, as trace_processor does once it has read the whole trace:
     * in timestamp order (file order among equal timestamps), an end closing the innermost open begin;
     * ends without a begin and begins without an end are problems. Call once after the last packet.
     */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        for (Map.Entry<Long, PendingTrack> e : pending.entrySet()) {
            match(e.getKey(), e.getValue());
        }
        pending.clear();
    }

    private void match(long track, PendingTrack t) {
        Deque<Integer> open = new ArrayDeque<>();
        for (int i : timeOrder(t)) {
            if (t.labels[i] >= 0) {
                open.push(i);
            } else if (open.isEmpty()) {
                unmatchedEnds++;
                problem("an end at " + t.timestamps[i] + " of a slice never begun on track " + track);
            } else {
                int b = open.pop();
                Label label = labels.get(t.labels[b]);
                listener.slice(track, label.name(), label.categories(), t.timestamps[b], t.timestamps[i]);
            }
        }
        if (!open.isEmpty()) {
            unendedSlices += open.size();
            problem(open.size() + " slice(s) never ended on track " + track + " (first: "
                    + labels.get(t.labels[open.peekLast()]).name() + ")");
        }
    }

    /** The track's edges by timestamp; stable, so equal timestamps keep their file order (trace_processor's tie-break). */
    private static int[] timeOrder(PendingTrack t) {
        if (t.inOrder) {
            return IntStream.range(0, t.size).toArray();
        }
        return IntStream.range(0, t.size).boxed()
                .sorted(Comparator.comparingLong(i -> t.timestamps[i]))
                .mapToInt(Integer::intValue).toArray();
    }

    private void problem(String text) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS_KEPT) {
            problems.add(text);
        }
    }

    /** The first problems found (at most 50), for assertion messages; {@link #problemCount()} counts all. */
    public List<String> problems() {
        return problems;
    }

    public long problemCount() {
        return problemCount;
    }

    public LossSummary losses() {
        return losses.build();
    }

    public long packets() {
        return packets;
    }

    public long packetsWithoutSequenceId() {
        return packetsWithoutSequenceId;
    }

    /** Track events dropped because their sequence's interned state was lost (what the UI would not show). */
    public long eventsSkippedForLostState() {
        return eventsSkippedForLostState;
    }

    /** End events without a begin before them on their track (in time), counted once {@link #finish()} ran. */
    public long unmatchedEnds() {
        return unmatchedEnds;
    }

    /** Slices begun and never ended, counted once {@link #finish()} ran. */
    public long unendedSlices() {
        return unendedSlices;
    }

    /** Distinct trusted_packet_sequence_ids seen. */
    public int sequences() {
        return sequences.size();
    }
}
