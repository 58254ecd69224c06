package io.jtrace.cli.summary;

import io.jtrace.protos.EventCategory;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import java.util.Set;

/**
 * Which data source wrote a sequence, told from what its packets carry. Every writer belongs to one
 * data source instance, so a sequence is one source's; packets do not name it, but each jtrace source
 * leaves marks: the tracks it describes (named in its source code, cited below), the categories it
 * interns, the packet types only it writes. A sequence with none of them yet stays unknown.
 */
final class SourceOfSequence {
    static final String SERVICE = "service";
    /** GcRecorder: "GC: <collector>" tracks, category "gc", the "heap used at GC" counter. */
    private static final String GC_TRACK_PREFIX = "GC: ";
    private static final String GC_HEAP_COUNTER = "heap used at GC";
    /** ThreadSampler.STATE_TRACK and CPU_TRACK. */
    private static final Set<String> THREAD_TRACKS = Set.of("Java state", "CPU time");
    /** MemorySampler's counters. */
    private static final Set<String> MEMORY_COUNTERS = Set.of("heap used", "heap committed", "non-heap used",
            "non-heap committed", "loaded classes");
    /** TrackEventDataSource.LOST_EVENTS_TRACK. */
    static final String LOST_EVENTS_TRACK = "jtrace: lost track events";
    /** JfrEventMapper.CATEGORY and AgentTrackUuids' named tracks. */
    private static final String JFR_CATEGORY = "jfr";
    private static final String JFR_TRACK_PREFIX = "jfr: ";

    private SourceOfSequence() {}

    /** The source this packet shows its sequence belongs to, or null if it shows nothing. */
    static String of(TracePacket p) {
        if (p.hasTraceConfig() || p.hasTraceStats() || p.hasSystemInfo()) {
            return SERVICE;
        }
        if (p.hasPerfSample() || p.hasStreamingProfilePacket()) {
            return "jvm.jfr";
        }
        if (p.hasInternedData()) {
            for (EventCategory c : p.getInternedData().getEventCategoriesList()) {
                if (c.getName().equals(JFR_CATEGORY)) {
                    return "jvm.jfr";
                }
            }
        }
        if (p.hasTrackDescriptor()) {
            String fromTrack = ofTrack(p.getTrackDescriptor());
            if (fromTrack != null) {
                return fromTrack;
            }
        }
        if (p.hasTrackEvent() && p.getTrackEvent().getCategoriesList().contains("gc")) {
            return "jvm.gc";
        }
        if (p.hasInternedData() && (p.getInternedData().getEventNamesCount() > 0
                || p.getInternedData().getEventCategoriesCount() > 0)) {
            return "track_event"; // the only jtrace source besides jvm.jfr that interns
        }
        return null;
    }

    private static String ofTrack(TrackDescriptor d) {
        String name = d.getName();
        if (name.startsWith(JFR_TRACK_PREFIX)) {
            return "jvm.jfr";
        }
        if (name.startsWith(GC_TRACK_PREFIX) || name.equals(GC_HEAP_COUNTER)) {
            return "jvm.gc";
        }
        if (THREAD_TRACKS.contains(name)) {
            return "jvm.threads";
        }
        if (d.hasCounter() && (MEMORY_COUNTERS.contains(name) || name.startsWith("pool: ")
                || name.startsWith("buffer pool: "))) {
            return "jvm.memory";
        }
        if (d.hasCounter() && name.matches("[^:/]+:[^/]*=[^/]*/.+")) {
            return "jvm.jmx"; // MBeanAttributeSpec.trackName: <object name>/<attribute>[/<key>]
        }
        if (name.equals(LOST_EVENTS_TRACK)) {
            return "track_event";
        }
        return null;
    }
}
