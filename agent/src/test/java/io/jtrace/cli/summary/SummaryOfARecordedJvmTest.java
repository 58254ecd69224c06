package io.jtrace.cli.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.cli.InProcessConsumer;
import io.jtrace.cli.trace.LossCounts;
import io.jtrace.cli.record.RecordCommand;
import io.jtrace.cli.record.StopHook;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jtrace record} of this JVM with the agent's real data sources, then {@code jtrace summary} of
 * the file: every count the summary gives is checked against the file decoded whole, independently.
 */
class SummaryOfARecordedJvmTest {
    @TempDir
    Path dir;

    @Test
    void summarizesARecordingOfTheAgentsDataSourcesAsTheFileSays() throws Exception {
        ProcessTrack process = ProcessTrack.forCurrentJvm();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        Path file = dir.resolve("jvm.pftrace");
        try (TracingService service = new TracingService(ServiceConfig.defaults());
             ProducerClient producer = new ProducerClient("jvm:" + process.pid(), List.of(
                     new TrackEventDataSource(process), new GcDataSource(process),
                     new ThreadsDataSource(process, sampler), new MemoryDataSource(process, sampler),
                     new JmxDataSource(process, sampler)))) {
            producer.connect(p -> service.connectProducer(p, producer.name(), 1000, process.pid()));
            Files.createDirectories(dir.resolve("sockets"));
            Files.createFile(dir.resolve("sockets").resolve("consumer.sock"));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            InProcessConsumer consumer = new InProcessConsumer(service);
            RecordCommand record = new RecordCommand(socket -> consumer,
                    new SocketPaths(dir.resolve("sockets")), new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(err), false, new StopHook() {
                        @Override
                        public void install(Runnable stop) { }

                        @Override
                        public void remove() { }
                    });
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                    () -> record.run(new String[] {"--time", "1500ms", "-o", file.toString()}));
            consumer.started.get(30, TimeUnit.SECONDS);
            // A collection for jvm.gc to record: its recorder subscribed at its start, and its stop waits
            // for the notifications of the collections since. Asked until the collectors count one: JDK 17
            // skips a System.gc() while another thread is inside a JNI critical region.
            long collections = collections();
            for (int i = 0; i < 1000 && collections() == collections; i++) {
                System.gc();
                Thread.sleep(1);
            }
            assertTrue(collections() > collections, "the collectors counted a collection to record");
            assertEquals(0, exit.get(60, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        } finally {
            sampler.shutdownNow();
        }

        List<TracePacket> packets = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        SummaryCommand.Result result = SummaryCommand.summarize(file);
        TraceSummary s = result.summary();
        assertNull(result.damage());
        assertEquals(Files.size(file), result.bytes());
        assertEquals(packets.size(), s.packets);
        assertEquals(packets.stream().map(TracePacket::getTrustedPacketSequenceId).distinct().count(), s.sequences());
        assertEquals(packets.stream().filter(TracePacket::hasTrackDescriptor).map(p -> p.getTrackDescriptor().getUuid())
                .distinct().count(), s.tracks());
        assertEquals(packets.stream().filter(TracePacket::hasTrackEvent).count(), s.trackEvents);
        Set<Long> tids = packets.stream().filter(p -> p.hasTrackDescriptor() && p.getTrackDescriptor().hasThread())
                .map(p -> p.getTrackDescriptor().getThread().getTid()).collect(Collectors.toSet());
        assertTrue(tids.size() > 3, "this JVM's threads: " + tids);
        assertEquals(Set.of(process.pid()), s.processes.keySet());
        assertEquals(process.name(), s.processes.get(process.pid()).name);
        assertEquals(tids, s.processes.get(process.pid()).threads);

        Map<String, TraceSummary.SourceShare> sources = s.sources();
        assertTrue(packets.stream().anyMatch(p -> p.hasTrackDescriptor()
                && p.getTrackDescriptor().getName().startsWith("GC: ")), "the collection is in the trace");
        assertEquals(Set.of("service", "track_event", "jvm.gc", "jvm.threads", "jvm.memory", "jvm.jmx"), sources.keySet(),
                "every sequence is attributed to its data source");
        assertEquals(packets.size(), sources.values().stream().mapToLong(v -> v.packets).sum());
        assertEquals(List.of("track_event", "jvm.gc", "jvm.threads", "jvm.memory", "jvm.jmx"), List.copyOf(s.configuredSources));

        assertEquals(0, s.packetsWithPreviousPacketDropped);
        assertEquals(LossCounts.NONE, s.serviceLosses);
        assertTrue(s.hasLostEventsCounter(), "track_event's final count of lost events is read");
        assertEquals(0, s.lostTrackEvents());
        TraceTimeline.Span span = s.timeline.span();
        assertEquals(0, span.unplacedTimestamps() + span.unplacedClocks(), "every timestamp is placed: " + span);
        assertTrue(span.durationNanos() > TimeUnit.MILLISECONDS.toNanos(1000)
                && span.durationNanos() < TimeUnit.SECONDS.toNanos(60), "spans the recording: " + span);
        String text = SummaryReport.text(result);
        assertTrue(text.contains("processes:    1" + System.lineSeparator()), text);
        assertTrue(text.contains("losses:       service no loss; 0 packets after a drop (previous_packet_dropped); "
                + "0 track events lost by writers"), text);
    }

    private static long collections() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(gc -> Math.max(0, gc.getCollectionCount())).sum();
    }
}
