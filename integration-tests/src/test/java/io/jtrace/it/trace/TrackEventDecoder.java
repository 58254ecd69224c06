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
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes track events the way trace_processor does for the parts jtrace writes, one packet at a time:
 * per-sequence interning, packet defaults and incremental clocks, track descriptors, and begin/end
 * matched per track uuid into slices. It keeps only what decoding needs (interning tables of live sequences, the events of
 * tracks with a slice still open) and hands everything else to a {@link Listener}, so a listener that
 * counts instead of storing can check a trace of millions of events.
 *
 * <p>A track's events can come from several sequences (a virtual thread writes through whichever
 * pooled sequence it claims, and its slice may end on another than it began on), and the file holds
 * sequences' chunks in the order the service read them, not in time order: an end can come before its
 * begin. trace_processor sorts events by timestamp before it matches begin and end; so does this
 * decoder, per track: it holds a track's events until as many ends as begins have arrived and they
 * pair up in timestamp order, then hands their slices to the listener and forgets them. A track whose
 * events never balance (a slice cut by the start or end of tracing) is held, and matched as far as it
 * goes, at {@link #finish()}.
 *
 * <p>Like trace_processor, a sequence that lost data ({@code previous_packet_dropped}) has unusable
 * incremental state until its next {@code SEQ_INCREMENTAL_STATE_CLEARED}: events that need it in
 * between are skipped and counted, because the UI would not show them either.
 */
public final class TrackEventDecoder implements TraceStream.PacketHandler {
    /** What the decoder found; every method is optional. */
    public interface Listener {
        default void packet(long index, TracePacket packet) {}

        default void track(TrackDescriptor descriptor) {}

        /** A slice whose begin and end were both seen on {@code track}. */
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

    /** A slice's begin (with its name and categories) or end. */
    private record Edge(boolean begin, long timestamp, String name, List<String> categories) {}

    /**
     * The events of a track not yet matched into slices, and begins minus ends among them. While every
     * one came from one sequence (which writes in time order) they are matched as they come, and only
     * open begins and ends without a begin (whose begin another sequence may still bring) are held; once
     * a second sequence writes to the track, its events are held until they balance and pair up in time.
     */
    private static final class PendingTrack {
        final List<Edge> edges = new ArrayList<>(2);
        /** One sequence's ends that came with no begin open: held in case another sequence brings it. */
        final List<Edge> orphanEnds = new ArrayList<>(0);
        final Sequence firstSource;
        boolean oneSequence = true;
        int depth;
        /** Size at which sorting last failed to pair the events up: retried once they double, not per event. */
        int failedAtSize;

        PendingTrack(Sequence firstSource) {
            this.firstSource = firstSource;
        }
    }

    private final Listener listener;
    private final Map<Integer, Sequence> sequences = new HashMap<>();
    /** Per track, events not yet matched; a track's entry is removed once they are, so it stays small. */
    private final Map<Long, PendingTrack> pending = new HashMap<>();
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
            if ((p.getSequenceFlags() & 2) != 0 && !seq.valid) {
                eventsSkippedForLostState++;
                problem("packet " + index + " needs incremental state its sequence "
                        + p.getTrustedPacketSequenceId() + " does not have (never cleared, or lost since)");
                return;
            }
            trackEvent(index, p, seq, timestamp);
        }
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
                edge(track, seq, new Edge(true, timestamp, name, categories));
            }
            case TYPE_SLICE_END -> edge(track, seq, new Edge(false, timestamp, null, null));
            case TYPE_COUNTER -> {
                double v = e.hasDoubleCounterValue() ? e.getDoubleCounterValue() : e.getCounterValue();
                listener.counter(track, v, timestamp);
            }
            default -> { }
        }
    }

    private void edge(long track, Sequence source, Edge edge) {
        PendingTrack t = pending.computeIfAbsent(track, k -> new PendingTrack(source));
        if (t.oneSequence && source != t.firstSource) {
            t.oneSequence = false;
            t.edges.addAll(0, t.orphanEnds); // they came before the open begins: first among equal times
            t.orphanEnds.clear();
        }
        if (t.oneSequence) {
            matchInOrder(track, t, edge);
            return;
        }
        t.edges.add(edge);
        t.depth += edge.begin() ? 1 : -1;
        if (t.depth == 0 && t.edges.size() >= 2 * t.failedAtSize) {
            if (pairsUpInTime(t.edges)) {
                match(track, t.edges);
                pending.remove(track);
            } else {
                t.failedAtSize = t.edges.size();
            }
        }
    }

    /** One sequence's events come in time order: an end closes the latest open begin, or waits as an orphan. */
    private void matchInOrder(long track, PendingTrack t, Edge edge) {
        t.depth += edge.begin() ? 1 : -1;
        if (edge.begin()) {
            t.edges.add(edge);
            return;
        }
        if (t.edges.isEmpty()) {
            t.orphanEnds.add(edge);
            return;
        }
        Edge b = t.edges.remove(t.edges.size() - 1);
        if (edge.timestamp() < b.timestamp()) {
            // One sequence writes in time order, so this is a bad timestamp, not events read out of order.
            problem("slice " + b.name() + " on track " + track + " ends at " + edge.timestamp() + ", before it begins at "
                    + b.timestamp());
        }
        listener.slice(track, b.name(), b.categories(), b.timestamp(), edge.timestamp());
        if (t.edges.isEmpty() && t.orphanEnds.isEmpty()) {
            pending.remove(track);
        }
    }

    /** Sorts {@code edges} by timestamp (stable: file order among equal ones) and says whether no end comes before its begin. */
    private static boolean pairsUpInTime(List<Edge> edges) {
        edges.sort(Comparator.comparingLong(Edge::timestamp));
        int depth = 0;
        for (Edge e : edges) {
            depth += e.begin() ? 1 : -1;
            if (depth < 0) {
                return false;
            }
        }
        return true;
    }

    /** Pairs time-sorted {@code edges} innermost first and reports the slices; ends without a begin and begins without an end are problems. */
    private void match(long track, List<Edge> edges) {
        Deque<Edge> open = new ArrayDeque<>();
        for (Edge e : edges) {
            if (e.begin()) {
                open.push(e);
            } else if (open.isEmpty()) {
                unmatchedEnds++;
                problem("an end at " + e.timestamp() + " of a slice never begun on track " + track);
            } else {
                Edge b = open.pop();
                listener.slice(track, b.name(), b.categories(), b.timestamp(), e.timestamp());
            }
        }
        if (!open.isEmpty()) {
            unendedSlices += open.size();
            problem(open.size() + " slice(s) never ended on track " + track + " (first: " + open.peekLast().name() + ")");
        }
    }

    /** Matches what tracks still hold (slices cut by the start or end of tracing); call once after the last packet. */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        for (Map.Entry<Long, PendingTrack> e : pending.entrySet()) {
            e.getValue().edges.addAll(0, e.getValue().orphanEnds);
            pairsUpInTime(e.getValue().edges);
            match(e.getKey(), e.getValue().edges);
        }
        pending.clear();
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
