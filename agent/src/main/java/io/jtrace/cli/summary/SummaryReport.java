package io.jtrace.cli.summary;

import io.jtrace.cli.trace.LossCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** A {@link SummaryCommand.Result} as text for people, or as JSON for scripts. */
final class SummaryReport {
    private static final String NL = System.lineSeparator();

    private SummaryReport() {}

    /** "1 packet", "2 packets", "1,024 packets". */
    private static String count(long n, String noun) {
        return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
    }

    static String text(SummaryCommand.Result r) {
        TraceSummary s = r.summary();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s: %s, %s%n", r.file(), count(r.bytes(), "byte"), count(s.packets, "packet")));
        if (r.damage() != null) {
            b.append("DAMAGED: ").append(r.damage()).append(NL);
        }
        b.append(String.format(Locale.ROOT, "sequences:    %,d%n", s.sequences()));
        b.append(String.format(Locale.ROOT, "tracks:       %,d (%s, %s)%n", s.tracks(),
                count(s.trackEvents, "track event"), count(s.perfSamples, "CPU sample")));
        b.append(String.format(Locale.ROOT, "processes:    %,d%n", s.processes.size()));
        for (Map.Entry<Integer, TraceSummary.ProcessInfo> p : s.processes.entrySet()) {
            b.append(String.format(Locale.ROOT, "  %-8d %s: %s%n", p.getKey(),
                    p.getValue().name.isEmpty() ? "?" : p.getValue().name, count(p.getValue().threads.size(), "thread")));
        }
        b.append(String.format(Locale.ROOT, "threads:      %,d%n", s.threads()));
        List<String> seen = new ArrayList<>();
        for (Map.Entry<String, TraceSummary.SourceShare> e : s.sources().entrySet()) {
            seen.add(String.format(Locale.ROOT, "%s (%s, %s)", e.getKey(), count(e.getValue().sequences, "sequence"),
                    count(e.getValue().packets, "packet")));
        }
        b.append("data sources: ").append(seen.isEmpty() ? "none" : String.join(", ", seen)).append(NL);
        if (!s.configuredSources.isEmpty()) {
            b.append("  configured: ").append(String.join(", ", s.configuredSources));
            Set<String> missing = notSeen(s);
            if (!missing.isEmpty()) {
                b.append("; no data from ").append(String.join(", ", missing));
            }
            b.append(NL);
        }
        TraceTimeline.Span span = s.timeline.span();
        if (span == null) {
            b.append("time:         no timestamps").append(NL);
        } else {
            b.append(String.format(Locale.ROOT, "time:         %.3f s on %s, %s to %s%n", span.durationNanos() / 1e9,
                    TraceTimeline.Span.clockName(span.clock()), time(span, span.first()), time(span, span.last())));
            if (span.unplacedTimestamps() > 0 || span.unplacedClocks() > 0) {
                b.append(String.format(Locale.ROOT, "  left out: %,d timestamps on undefined sequence clocks, %d "
                        + "clocks no snapshot relates to %s%n", span.unplacedTimestamps(), span.unplacedClocks(),
                        TraceTimeline.Span.clockName(span.clock())));
            }
        }
        b.append("losses:       ").append(losses(s)).append(NL);
        return b.toString();
    }

    private static String losses(TraceSummary s) {
        List<String> parts = new ArrayList<>();
        if (s.serviceLosses == null) {
            parts.add("no trace_stats packet (the service's loss counters are unknown)");
        } else {
            parts.add("service " + s.serviceLosses);
        }
        parts.add(count(s.packetsWithPreviousPacketDropped, "packet") + " after a drop (previous_packet_dropped)");
        if (s.hasLostEventsCounter()) {
            parts.add(count(s.lostTrackEvents(), "track event") + " lost by writers");
        }
        if (s.unparsablePackets > 0) {
            parts.add(count(s.unparsablePackets, "packet") + (s.unparsablePackets == 1 ? " that does" : " that do")
                    + " not decode");
        }
        if (s.packetsWithoutIncrementalState > 0) {
            parts.add(count(s.packetsWithoutIncrementalState, "packet") + " trace_processor would skip for their lost "
                    + "incremental state (left out above)");
        }
        return String.join("; ", parts);
    }

    private static Set<String> notSeen(TraceSummary s) {
        Set<String> missing = new LinkedHashSet<>(s.configuredSources);
        missing.removeAll(s.sources().keySet());
        return missing;
    }

    /** A trace-clock time: as wall-clock time when a snapshot tied the trace clock to REALTIME, else in ns. */
    private static String time(TraceTimeline.Span span, long value) {
        if (span.realtimeMinusClock() != null) {
            long realtime = value + span.realtimeMinusClock();
            return Instant.ofEpochSecond(Math.floorDiv(realtime, 1_000_000_000L), Math.floorMod(realtime, 1_000_000_000L))
                    .toString();
        }
        return value + " ns";
    }

    static String json(SummaryCommand.Result r) {
        TraceSummary s = r.summary();
        StringBuilder b = new StringBuilder("{");
        field(b, "file", str(r.file().toString())).append(',');
        field(b, "bytes", r.bytes()).append(',');
        field(b, "packets", s.packets).append(',');
        field(b, "damage", r.damage() == null ? "null" : str(r.damage())).append(',');
        field(b, "sequences", s.sequences()).append(',');
        field(b, "tracks", s.tracks()).append(',');
        field(b, "track_events", s.trackEvents).append(',');
        field(b, "cpu_samples", s.perfSamples).append(',');
        b.append("\"processes\":[");
        boolean first = true;
        for (Map.Entry<Integer, TraceSummary.ProcessInfo> p : s.processes.entrySet()) {
            b.append(first ? "" : ",").append('{');
            field(b, "pid", p.getKey()).append(',');
            field(b, "name", str(p.getValue().name)).append(',');
            field(b, "threads", p.getValue().threads.size()).append('}');
            first = false;
        }
        b.append("],");
        field(b, "threads", s.threads()).append(',');
        b.append("\"data_sources\":{");
        first = true;
        for (Map.Entry<String, TraceSummary.SourceShare> e : s.sources().entrySet()) {
            b.append(first ? "" : ",").append(str(e.getKey())).append(":{");
            field(b, "sequences", e.getValue().sequences).append(',');
            field(b, "packets", e.getValue().packets).append('}');
            first = false;
        }
        b.append("},\"configured_data_sources\":[");
        b.append(String.join(",", s.configuredSources.stream().map(SummaryReport::str).toList())).append("],");
        TraceTimeline.Span span = s.timeline.span();
        if (span == null) {
            field(b, "time", "null").append(',');
        } else {
            b.append("\"time\":{");
            field(b, "clock", str(TraceTimeline.Span.clockName(span.clock()))).append(',');
            field(b, "first_ns", span.first()).append(',');
            field(b, "last_ns", span.last()).append(',');
            field(b, "duration_ns", span.durationNanos()).append("},");
        }
        b.append("\"losses\":{");
        LossCounts l = s.serviceLosses;
        if (l != null) {
            field(b, "chunks_overwritten", l.chunksOverwritten()).append(',');
            field(b, "chunks_discarded", l.chunksDiscarded()).append(',');
            field(b, "trace_writer_packet_loss", l.writerPacketLoss()).append(',');
            field(b, "abi_violations", l.abiViolations()).append(',');
            field(b, "patches_failed", l.patchesFailed()).append(',');
            field(b, "patches_discarded", l.patchesDiscarded()).append(',');
            field(b, "invalid_packets", l.invalidPackets()).append(',');
            field(b, "packets_without_incremental_state", l.packetsWithoutIncrementalState()).append(',');
        }
        field(b, "trace_stats", l != null).append(',');
        field(b, "previous_packet_dropped", s.packetsWithPreviousPacketDropped).append(',');
        field(b, "lost_track_events", s.hasLostEventsCounter() ? Long.toString(s.lostTrackEvents()) : "null").append(',');
        field(b, "undecodable_packets", s.unparsablePackets).append(',');
        field(b, "skipped_needs_incremental_state", s.packetsWithoutIncrementalState).append("}}").append(NL);
        return b.toString();
    }

    private static StringBuilder field(StringBuilder b, String name, Object value) {
        return b.append('"').append(name).append("\":").append(value);
    }

    private static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
