package io.jtrace.cli.summary;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.cli.trace.LossCounts;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a trace holds, accumulated one packet at a time: memory grows with the number of sequences,
 * processes, threads and tracks, never with the number of packets.
 */
final class TraceSummary {
    /** A process of the trace and its threads (OS tids). */
    static final class ProcessInfo {
        String name = "";
        final Set<Long> threads = new HashSet<>();
    }

    /** Where {@link #sources} counts the sequences of sources that had nothing to record. */
    static final String HEADERS_ONLY = "headers only";

    /** One data source's share: sequences and packets. */
    static final class SourceShare {
        int sequences;
        long packets;
    }

    private static final class SequenceInfo {
        String source;
        long packets;
        /**
         * Whether it holds nothing but what every jtrace sequence opens with (a header setting its defaults,
         * the process's descriptor): a source that was started and had nothing to record (jvm.gc with no
         * collection), which no mark tells apart.
         */
        boolean headersOnly = true;
        /**
         * Whether trace_processor would decode its packets that need incremental state: not before the
         * sequence's first INCREMENTAL_STATE_CLEARED, nor after a previous_packet_dropped until the next.
         */
        boolean incrementalStateValid;
    }

    long packets;
    long trackEvents;
    long perfSamples;
    long packetsWithPreviousPacketDropped;
    long unparsablePackets;
    /** Packets trace_processor would skip (packet_skipped_seq_needs_incremental_state_invalid): left out of the rest. */
    long packetsWithoutIncrementalState;
    LossCounts serviceLosses;
    /** The last value of each "jtrace: lost track events" counter, summed over the processes that have one. */
    private final Map<Long, Double> lostTrackEvents = new HashMap<>();
    private final Set<Long> lostEventsTracks = new HashSet<>();
    final Map<Integer, ProcessInfo> processes = new TreeMap<>();
    final Set<String> configuredSources = new LinkedHashSet<>();
    private final Map<Integer, SequenceInfo> sequences = new HashMap<>();
    private final Set<Long> tracks = new HashSet<>();
    /** Per sequence: its default track (trace_packet_defaults), for counters that name none. */
    private final Map<Integer, Long> defaultTracks = new HashMap<>();
    final TraceTimeline timeline = new TraceTimeline();

    void packet(TracePacket p) {
        packets++;
        int sequenceId = p.getTrustedPacketSequenceId();
        SequenceInfo seq = sequences.computeIfAbsent(sequenceId, k -> new SequenceInfo());
        seq.packets++;
        if (seq.headersOnly && !isHeader(p)) {
            seq.headersOnly = false;
        }
        if (seq.source == null) {
            String source = SourceOfSequence.of(p);
            if (source != null) {
                seq.source = source;
            }
        }
        if (p.getPreviousPacketDropped() != 0) {
            packetsWithPreviousPacketDropped++;
        }
        if ((p.getSequenceFlags() & SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED) != 0 || p.getIncrementalStateCleared()) {
            seq.incrementalStateValid = true;
        } else if (p.getPreviousPacketDropped() != 0) {
            seq.incrementalStateValid = false;
        }
        if ((p.getSequenceFlags() & SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE) != 0 && !seq.incrementalStateValid) {
            // As trace_processor does: its names, clock and defaults are unknown, so nothing of it is read.
            packetsWithoutIncrementalState++;
            return;
        }
        timeline.packet(p);
        if (p.hasTraceConfig()) {
            for (TraceConfig.DataSource ds : p.getTraceConfig().getDataSourcesList()) {
                DataSourceConfig config = ds.getConfig();
                configuredSources.add(config.getName());
            }
        }
        if (p.hasTraceStats()) {
            serviceLosses = LossCounts.of(p.getTraceStats()); // cumulative: the last one holds them all
        }
        if ((p.getSequenceFlags() & SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED) != 0) {
            defaultTracks.remove(sequenceId);
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTrackEventDefaults()) {
            defaultTracks.put(sequenceId, p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid());
        }
        if (p.hasTrackDescriptor()) {
            track(p.getTrackDescriptor());
        }
        if (p.hasProcessDescriptor()) {
            process(p.getProcessDescriptor().getPid(), p.getProcessDescriptor().getProcessName());
        }
        if (p.hasThreadDescriptor()) {
            process(p.getThreadDescriptor().getPid(), null).threads.add((long) p.getThreadDescriptor().getTid());
        }
        if (p.hasTrackEvent()) {
            trackEvents++;
            TrackEvent e = p.getTrackEvent();
            if (e.getType() == TrackEvent.Type.TYPE_COUNTER) {
                long track = e.hasTrackUuid() ? e.getTrackUuid() : defaultTracks.getOrDefault(sequenceId, 0L);
                if (lostEventsTracks.contains(track)) {
                    lostTrackEvents.put(track, e.hasDoubleCounterValue() ? e.getDoubleCounterValue() : e.getCounterValue());
                }
            }
        }
        if (p.hasPerfSample()) {
            perfSamples++;
        }
    }

    private void track(TrackDescriptor d) {
        tracks.add(d.getUuid());
        if (d.hasProcess()) {
            process(d.getProcess().getPid(), d.getProcess().getProcessName());
        }
        if (d.hasThread()) {
            process(d.getThread().getPid(), null).threads.add(d.getThread().getTid());
        }
        if (d.getName().equals(TrackEventDataSource.LOST_EVENTS_TRACK)) {
            lostEventsTracks.add(d.getUuid());
        }
    }

    private ProcessInfo process(int pid, String name) {
        ProcessInfo info = processes.computeIfAbsent(pid, k -> new ProcessInfo());
        if (name != null && !name.isEmpty()) {
            info.name = name;
        }
        return info;
    }

    int sequences() {
        return sequences.size();
    }

    int tracks() {
        return tracks.size();
    }

    long threads() {
        return processes.values().stream().mapToLong(p -> p.threads.size()).sum();
    }

    /** Events the track_event source counted as lost, from its final counters (0 without them). */
    long lostTrackEvents() {
        return (long) lostTrackEvents.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    boolean hasLostEventsCounter() {
        return !lostTrackEvents.isEmpty();
    }

    /** A sequence's header (defaults and flags, no data) or the bare descriptor of a process. */
    private static boolean isHeader(TracePacket p) {
        if (p.getPreviousPacketDropped() != 0) {
            return false; // what followed the header was lost, not absent
        }
        if (p.getDataCase() == TracePacket.DataCase.DATA_NOT_SET) {
            // Not a packet of data jtrace's protos do not know (parsed as unknown fields), nor interned data.
            return p.getUnknownFields().asMap().isEmpty() && !p.hasInternedData();
        }
        TrackDescriptor d = p.hasTrackDescriptor() ? p.getTrackDescriptor() : null;
        return d != null && d.hasProcess() && !d.hasThread() && !d.hasCounter() && !d.hasParentUuid();
    }

    /**
     * Each source's sequences and packets, by name: sequences nothing identified under "headers only" when
     * they hold nothing else (a source with nothing to record), else under "unknown".
     */
    Map<String, SourceShare> sources() {
        Map<String, SourceShare> shares = new TreeMap<>();
        for (SequenceInfo s : sequences.values()) {
            String name = s.source != null ? s.source : s.headersOnly ? HEADERS_ONLY : "unknown";
            SourceShare share = shares.computeIfAbsent(name, k -> new SourceShare());
            share.sequences++;
            share.packets += s.packets;
        }
        return shares;
    }
}
