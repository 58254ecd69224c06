package io.jtrace.it.trace;

import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes track events the way trace_processor does for the parts jtrace writes, one packet at a time:
 * per-sequence interning and packet defaults, track descriptors, and begin/end matched per track uuid
 * into slices. It keeps only what decoding needs (interning tables of live sequences, slices still
 * open) and hands everything else to a {@link Listener}, so a listener that counts instead of storing
 * can check a trace of millions of events.
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
    }

    private static final int MAX_PROBLEMS_KEPT = 50;

    private static final class Sequence {
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        long defaultTrack;
        /** A clear was seen and no loss since: interned state is usable. */
        boolean valid;
    }

    private record Open(String name, List<String> categories, long begin) {}

    private final Listener listener;
    private final Map<Integer, Sequence> sequences = new HashMap<>();
    /** Open slices per track; a track's entry is removed when its last slice ends, so it stays small. */
    private final Map<Long, Deque<Open>> open = new HashMap<>();
    private final LossSummary.Builder losses = new LossSummary.Builder();
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
    private long packets;
    private long packetsWithoutSequenceId;
    private long trackEvents;
    private long eventsSkippedForLostState;
    private long unmatchedEnds;
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
            seq.valid = true;
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTrackEventDefaults()) {
            seq.defaultTrack = p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid();
        }
        if (p.hasInternedData()) {
            for (EventName n : p.getInternedData().getEventNamesList()) {
                seq.names.put(n.getIid(), n.getName());
            }
            for (EventCategory c : p.getInternedData().getEventCategoriesList()) {
                seq.categories.put(c.getIid(), c.getName());
            }
        }
        if (p.hasTrackEvent()) {
            trackEvents++;
            if ((p.getSequenceFlags() & 2) != 0 && !seq.valid) {
                eventsSkippedForLostState++;
                problem("packet " + index + " needs incremental state its sequence "
                        + p.getTrustedPacketSequenceId() + " does not have (never cleared, or lost since)");
                return;
            }
            trackEvent(index, p, seq);
        }
    }

    private void trackEvent(long index, TracePacket p, Sequence seq) {
        TrackEvent e = p.getTrackEvent();
        long track = e.hasTrackUuid() ? e.getTrackUuid() : seq.defaultTrack;
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
                open.computeIfAbsent(track, k -> new ArrayDeque<>(2)).push(new Open(name, categories, p.getTimestamp()));
            }
            case TYPE_SLICE_END -> {
                Deque<Open> stack = open.get(track);
                if (stack == null || stack.isEmpty()) {
                    unmatchedEnds++;
                    problem("packet " + index + " ends a slice never begun on track " + track);
                    return;
                }
                Open o = stack.pop();
                if (stack.isEmpty()) {
                    open.remove(track);
                }
                if (p.getTimestamp() < o.begin) {
                    problem("slice " + o.name + " ends before it begins");
                }
                listener.slice(track, o.name, o.categories, o.begin, p.getTimestamp());
            }
            case TYPE_COUNTER -> {
                double v = e.hasDoubleCounterValue() ? e.getDoubleCounterValue() : e.getCounterValue();
                listener.counter(track, v, p.getTimestamp());
            }
            default -> { }
        }
    }

    /** Reports slices still open at the end of the trace; call once after the last packet. */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        for (Map.Entry<Long, Deque<Open>> e : open.entrySet()) {
            problem(e.getValue().size() + " slice(s) never ended on track " + e.getKey()
                    + " (first: " + e.getValue().peekLast().name + ")");
        }
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

    public long trackEvents() {
        return trackEvents;
    }

    /** Track events dropped because their sequence's interned state was lost (what the UI would not show). */
    public long eventsSkippedForLostState() {
        return eventsSkippedForLostState;
    }

    /** End events whose track had no open slice: lost begins, or a begin and end on different tracks. */
    public long unmatchedEnds() {
        return unmatchedEnds;
    }

    /** Slices begun and never ended, counted once {@link #finish()} ran. */
    public long unendedSlices() {
        long n = 0;
        for (Deque<Open> d : open.values()) {
            n += d.size();
        }
        return n;
    }

    /** Distinct trusted_packet_sequence_ids seen. */
    public int sequences() {
        return sequences.size();
    }
}
