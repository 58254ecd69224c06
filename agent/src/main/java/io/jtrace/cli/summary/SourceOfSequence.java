package io.jtrace.cli.summary;

import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jfr.format.JfrEventMapper;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import java.util.Set;

/**
 * Which data source wrote a sequence, told from what its packets carry. Every writer belongs to one
 * data source instance, so a sequence is one source's; packets do not name it, but each jtrace source
 * leaves marks: the tracks it describes, the categories it interns, the packet types only it writes
 * (the sources' own constants where they have them). A sequence with none of them yet stays unknown.
 */
final class SourceOfSequence {
    static final String SERVICE = "service";
    /** MemorySampler's counters (built there from "heap"/"non-heap" + " used"/" committed"). */
    private static final Set<String> MEMORY_COUNTERS = Set.of("heap used", "heap committed", "non-heap used",
            "non-heap committed", "loaded classes");

    private SourceOfSequence() {}

    /** The source this packet shows its sequence belongs to, or null if it shows nothing. */
    static String of(TracePacket p) {
        if (p.hasTraceConfig() || p.hasTraceStats() || p.hasSystemInfo()) {
            return SERVICE;
        }
        if (p.hasPerfSample() || p.hasStreamingProfilePacket()) {
            return JfrDataSource.NAME;
        }
        if (p.hasInternedData()) {
            for (EventCategory c : p.getInternedData().getEventCategoriesList()) {
                if (c.getName().equals(JfrEventMapper.CATEGORY)) {
                    return JfrDataSource.NAME;
                }
            }
        }
        if (p.hasTrackDescriptor()) {
            String fromTrack = ofTrack(p.getTrackDescriptor());
            if (fromTrack != null) {
                return fromTrack;
            }
        }
        if (p.hasTrackEvent() && p.getTrackEvent().getCategoriesList().contains(GcDataSource.CATEGORY)) {
            return GcDataSource.NAME;
        }
        if (p.hasInternedData() && (p.getInternedData().getEventNamesCount() > 0
                || p.getInternedData().getEventCategoriesCount() > 0)) {
            return TrackEventDataSource.NAME; // the only jtrace source besides jvm.jfr that interns
        }
        if (p.hasClockSnapshot()) {
            for (ClockSnapshot.Clock c : p.getClockSnapshot().getClocksList()) {
                if (c.getClockId() == SequenceHeader.INCREMENTAL_CLOCK_ID && c.getIsIncremental()) {
                    // Only track_event's sequence headers start an incremental clock: a sequence whose
                    // events a ring left out still shows whose it is.
                    return TrackEventDataSource.NAME;
                }
            }
        }
        return null;
    }

    private static String ofTrack(TrackDescriptor d) {
        String name = d.getName();
        if (name.startsWith(GcDataSource.COLLECTOR_TRACK_PREFIX) || name.equals(GcDataSource.HEAP_COUNTER)) {
            return GcDataSource.NAME;
        }
        if (name.equals(ThreadsDataSource.STATE_TRACK) || name.equals(ThreadsDataSource.CPU_TRACK)) {
            return ThreadsDataSource.NAME;
        }
        if (d.hasCounter() && (MEMORY_COUNTERS.contains(name) || name.startsWith("pool: ")
                || name.startsWith("buffer pool: "))) {
            return MemoryDataSource.NAME;
        }
        if (d.hasCounter() && name.matches("[^:/]+:[^/]*=[^/]*/.+")) {
            return JmxDataSource.NAME; // MBeanAttributeSpec.trackName: <object name>/<attribute>[/<key>]
        }
        if (name.equals(TrackEventDataSource.LOST_EVENTS_TRACK)) {
            return TrackEventDataSource.NAME;
        }
        return null;
    }
}
