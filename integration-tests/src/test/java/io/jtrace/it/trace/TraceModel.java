package io.jtrace.it.trace;

import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a Perfetto trace the way trace_processor does for the parts jtrace writes: per-sequence
 * interning and packet defaults, track descriptors, and begin/end pairs matched per track into slices.
 */
public final class TraceModel {
    public record SliceRecord(long track, String name, List<String> categories, long begin, long end) {}

    public record CounterSample(long track, double value, long timestamp) {}

    private static final class Sequence {
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        long defaultTrack;
        boolean cleared;
    }

    private static final class Open {
        final String name;
        final List<String> categories;
        final long begin;

        Open(String name, List<String> categories, long begin) {
            this.name = name;
            this.categories = categories;
            this.begin = begin;
        }
    }

    public final List<TracePacket> packets;
    public final Map<Long, TrackDescriptor> tracks = new LinkedHashMap<>();
    public final List<SliceRecord> slices = new ArrayList<>();
    public final List<CounterSample> counters = new ArrayList<>();
    public final List<String> problems = new ArrayList<>();
    public int packetsWithoutSequenceId;
    public int firstClockSnapshot = -1;
    public int firstTimestampedTrackEvent = -1;
    private final Map<Long, Deque<Open>> open = new HashMap<>();

    private TraceModel(Trace trace) {
        this.packets = trace.getPacketList();
        Map<Integer, Sequence> sequences = new HashMap<>();
        for (int i = 0; i < packets.size(); i++) {
            TracePacket p = packets.get(i);
            if (!p.hasTrustedPacketSequenceId()) {
                packetsWithoutSequenceId++;
                continue;
            }
            Sequence seq = sequences.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new Sequence());
            if ((p.getSequenceFlags() & 1) != 0) {
                seq.names.clear();
                seq.categories.clear();
                seq.cleared = true;
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
            if (p.hasClockSnapshot() && firstClockSnapshot < 0) {
                firstClockSnapshot = i;
            }
            if (p.hasTrackDescriptor()) {
                tracks.put(p.getTrackDescriptor().getUuid(), p.getTrackDescriptor());
            }
            if (p.hasTrackEvent()) {
                if (firstTimestampedTrackEvent < 0 && p.hasTimestamp()) {
                    firstTimestampedTrackEvent = i;
                }
                if ((p.getSequenceFlags() & 2) != 0 && !seq.cleared) {
                    problems.add("packet " + i + " needs incremental state its sequence never cleared");
                }
                trackEvent(i, p, seq);
            }
        }
        for (Map.Entry<Long, Deque<Open>> e : open.entrySet()) {
            if (!e.getValue().isEmpty()) {
                problems.add(e.getValue().size() + " slice(s) never ended on track " + e.getKey());
            }
        }
    }

    public static TraceModel read(Path file) throws IOException {
        return new TraceModel(Trace.parseFrom(Files.readAllBytes(file)));
    }

    private void trackEvent(int index, TracePacket p, Sequence seq) {
        TrackEvent e = p.getTrackEvent();
        long track = e.hasTrackUuid() ? e.getTrackUuid() : seq.defaultTrack;
        String name = e.hasName() ? e.getName() : e.hasNameIid() ? seq.names.get(e.getNameIid()) : null;
        List<String> categories = new ArrayList<>(e.getCategoriesList());
        for (long iid : e.getCategoryIidsList()) {
            categories.add(seq.categories.get(iid));
        }
        if (e.hasNameIid() && name == null) {
            problems.add("packet " + index + " uses name iid " + e.getNameIid() + " never interned");
        }
        switch (e.getType()) {
            case TYPE_SLICE_BEGIN:
                open.computeIfAbsent(track, k -> new ArrayDeque<>()).push(new Open(name, categories, p.getTimestamp()));
                break;
            case TYPE_SLICE_END:
                Deque<Open> stack = open.get(track);
                if (stack == null || stack.isEmpty()) {
                    problems.add("packet " + index + " ends a slice never begun on track " + track);
                } else {
                    Open o = stack.pop();
                    if (p.getTimestamp() < o.begin) {
                        problems.add("slice " + o.name + " ends before it begins");
                    }
                    slices.add(new SliceRecord(track, o.name, o.categories, o.begin, p.getTimestamp()));
                }
                break;
            case TYPE_COUNTER:
                double v = e.hasDoubleCounterValue() ? e.getDoubleCounterValue() : e.getCounterValue();
                counters.add(new CounterSample(track, v, p.getTimestamp()));
                break;
            default:
                break;
        }
    }

    /** Slices on tracks whose descriptor name starts with {@code prefix}. */
    public List<SliceRecord> slicesOnTracksNamed(String prefix) {
        List<SliceRecord> result = new ArrayList<>();
        for (SliceRecord s : slices) {
            TrackDescriptor d = tracks.get(s.track());
            if (d != null && d.getName().startsWith(prefix)) {
                result.add(s);
            }
        }
        return result;
    }

    public List<CounterSample> countersOnTracksNamed(String prefix) {
        List<CounterSample> result = new ArrayList<>();
        for (CounterSample c : counters) {
            TrackDescriptor d = tracks.get(c.track());
            if (d != null && d.getName().startsWith(prefix)) {
                result.add(c);
            }
        }
        return result;
    }
}
