package io.jtrace.it.trace;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a Perfetto trace the way trace_processor does for the parts jtrace writes: per-sequence
 * interning and packet defaults, track descriptors, and begin/end pairs matched per track into slices.
 * Everything is kept in memory, which suits the small traces of the functional tests; the decoding
 * itself is {@link TrackEventDecoder}'s, streamed by {@link TraceStream}.
 */
public final class TraceModel {
    public record SliceRecord(long track, String name, List<String> categories, long begin, long end) {}

    public record CounterSample(long track, double value, long timestamp) {}

    /** A track event as trace_processor sees it: name resolved through the sequence's interning. */
    public record EventRecord(TrackEvent event, String name, long timestamp, long track) {}

    public final List<TracePacket> packets = new ArrayList<>();
    public final Map<Long, TrackDescriptor> tracks = new LinkedHashMap<>();
    public final List<SliceRecord> slices = new ArrayList<>();
    public final List<CounterSample> counters = new ArrayList<>();
    public final List<EventRecord> events = new ArrayList<>();
    public final List<String> problems;
    public int packetsWithoutSequenceId;
    public int firstClockSnapshot = -1;
    public int firstTimestampedTrackEvent = -1;

    private TraceModel(Path file) throws IOException {
        TrackEventDecoder decoder = TrackEventDecoder.decode(file, new TrackEventDecoder.Listener() {
            @Override
            public void packet(long index, TracePacket p) {
                packets.add(p);
                if (p.hasClockSnapshot() && firstClockSnapshot < 0) {
                    firstClockSnapshot = (int) index;
                }
                if (p.hasTrackEvent() && p.hasTimestamp() && firstTimestampedTrackEvent < 0) {
                    firstTimestampedTrackEvent = (int) index;
                }
            }

            @Override
            public void track(TrackDescriptor descriptor) {
                tracks.put(descriptor.getUuid(), descriptor);
            }

            @Override
            public void slice(long track, String name, List<String> categories, long begin, long end) {
                slices.add(new SliceRecord(track, name, categories, begin, end));
            }

            @Override
            public void counter(long track, double value, long timestamp) {
                counters.add(new CounterSample(track, value, timestamp));
            }

            @Override
            public void event(long index, TrackEvent event, String name, long timestamp, long track) {
                events.add(new EventRecord(event, name, timestamp, track));
            }
        });
        this.problems = decoder.problems();
        this.packetsWithoutSequenceId = (int) decoder.packetsWithoutSequenceId();
    }

    /** Reads a whole (small) trace into memory; scale tests use {@link TrackEventDecoder} directly. */
    public static TraceModel read(Path file) throws IOException {
        return new TraceModel(file);
    }

    /** The slices named {@code name}, in order of their begin. */
    public List<SliceRecord> slicesNamed(String name) {
        List<SliceRecord> result = new ArrayList<>();
        for (SliceRecord s : slices) {
            if (name.equals(s.name())) {
                result.add(s);
            }
        }
        result.sort(Comparator.comparingLong(SliceRecord::begin));
        return result;
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
