package io.jtrace.agent.tracks;

import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the polling sources' sequences say, read back the way trace_processor reads them: tracks by the
 * descriptors seen in the current incremental-state epoch of their sequence, events on their tracks
 * with CLOCK_MONOTONIC timestamps, and every event trace_processor would not be able to place (after a
 * loss before a new header, or on a track its sequence had not described since its last header) listed
 * as {@link #undecodable}.
 */
public final class DecodedSequences {
    /** An event with its packet's timestamp. */
    public record Event(long timestamp, TrackEvent event) {}

    /** Every descriptor of each track uuid, in order (a thread's track is described again when renamed). */
    private final Map<Long, List<TrackDescriptor>> descriptors = new LinkedHashMap<>();
    private final Map<Long, List<Event>> events = new LinkedHashMap<>();
    private final List<String> undecodable = new ArrayList<>();

    public DecodedSequences(List<TracePacket> packets) {
        Map<Integer, Boolean> valid = new HashMap<>();
        Map<Integer, Set<Long>> described = new HashMap<>();
        for (TracePacket p : packets) {
            int seq = p.getTrustedPacketSequenceId();
            if (p.getPreviousPacketDropped() != 0) {
                valid.put(seq, false);
            }
            if ((p.getSequenceFlags() & SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED) != 0) {
                valid.put(seq, true);
                described.put(seq, new HashSet<>());
            }
            if (p.hasTrackDescriptor()) {
                TrackDescriptor d = p.getTrackDescriptor();
                descriptors.computeIfAbsent(d.getUuid(), u -> new ArrayList<>()).add(d);
                described.computeIfAbsent(seq, s -> new HashSet<>()).add(d.getUuid());
            }
            if (p.hasTrackEvent()) {
                long track = p.getTrackEvent().getTrackUuid();
                if (!valid.getOrDefault(seq, false)) {
                    undecodable.add("after a loss, before a new header: " + p);
                } else if (!described.getOrDefault(seq, Set.of()).contains(track)) {
                    undecodable.add("on a track not described since the last header: " + p);
                } else {
                    events.computeIfAbsent(track, t -> new ArrayList<>()).add(new Event(p.getTimestamp(), p.getTrackEvent()));
                }
            }
        }
    }

    /** Events trace_processor would drop or could not place. */
    public List<String> undecodable() {
        return undecodable;
    }

    /** The uuid of the one track named {@code name} under {@code parent}; throws when there is none or several. */
    public long track(long parent, String name) {
        List<Long> found = new ArrayList<>();
        for (Map.Entry<Long, List<TrackDescriptor>> e : descriptors.entrySet()) {
            TrackDescriptor last = e.getValue().get(e.getValue().size() - 1);
            if (last.getParentUuid() == parent && last.getName().equals(name)) {
                found.add(e.getKey());
            }
        }
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " tracks named '" + name + "' under " + parent + "; tracks: " + trackNames());
        }
        return found.get(0);
    }

    /** Whether a track named {@code name} is under {@code parent}. */
    public boolean hasTrack(long parent, String name) {
        return descriptors.values().stream().anyMatch(ds -> ds.get(ds.size() - 1).getParentUuid() == parent
                && ds.get(ds.size() - 1).getName().equals(name));
    }

    /** Every track named {@code name}, whatever its parent. */
    public List<Long> tracksNamed(String name) {
        List<Long> found = new ArrayList<>();
        for (Map.Entry<Long, List<TrackDescriptor>> e : descriptors.entrySet()) {
            if (e.getValue().get(e.getValue().size() - 1).getName().equals(name)) {
                found.add(e.getKey());
            }
        }
        return found;
    }

    /** The names of the tracks described under {@code parent}. */
    public List<String> trackNames(long parent) {
        List<String> names = new ArrayList<>();
        for (List<TrackDescriptor> ds : descriptors.values()) {
            TrackDescriptor last = ds.get(ds.size() - 1);
            if (last.getParentUuid() == parent && !last.hasThread()) {
                names.add(last.getName());
            }
        }
        return names;
    }

    private List<String> trackNames() {
        List<String> names = new ArrayList<>();
        for (List<TrackDescriptor> ds : descriptors.values()) {
            names.add(ds.get(ds.size() - 1).getName());
        }
        return names;
    }

    /** Every descriptor written for {@code uuid}, in order. */
    public List<TrackDescriptor> descriptors(long uuid) {
        return descriptors.getOrDefault(uuid, List.of());
    }

    /** The track's events, in order. */
    public List<Event> events(long track) {
        return events.getOrDefault(track, List.of());
    }

    /** The values of a counter track (integer or double, as written), in order. */
    public List<Number> counterValues(long track) {
        List<Number> values = new ArrayList<>();
        for (Event e : events(track)) {
            if (e.event().getType() != TrackEvent.Type.TYPE_COUNTER) {
                throw new AssertionError("not a counter event: " + e);
            }
            values.add(e.event().hasDoubleCounterValue() ? (Number) e.event().getDoubleCounterValue()
                    : (Number) e.event().getCounterValue());
        }
        return values;
    }
}
