package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.WAIT_SECONDS;
import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start/stop notifications, periodic flushes, streaming into a file, session names. */
class SessionLifecycleTest {
    @TempDir
    Path dir;

    private final TracingService service = new TracingService(
            new ServiceConfig(64 * 1024, 4096, null, 8, 1L << 30, 5000));

    @AfterEach
    void close() {
        service.close();
    }

    private static TraceConfig.Builder config(String source) {
        return ServiceTesting.config(1024, source).toBuilder();
    }

    /** A request the service has handled after everything posted before it. */
    private void roundTrip(ConsumerEndpoint consumer) throws Exception {
        await(consumer.flush(5000));
    }

    @Test
    void enableTracingCompletesOnlyOnceDataSourcesThatNotifyHaveStarted() throws Exception {
        ScriptedProducer producer = ScriptedProducer.connect(service, new DataSourceDescriptor("src", true, false));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        CompletableFuture<Long> enabled = consumer.enableTracing(config("src").build());
        long instance = producer.started.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        roundTrip(consumer);
        assertFalse(enabled.isDone(), "the data source has not said it started");
        producer.endpoint.notifyDataSourceStarted(instance);
        assertTrue(await(enabled) > 0);
    }

    @Test
    void aDataSourceThatNeverReportsStartedDoesNotHoldTracingBackForever() throws Exception {
        ScriptedProducer.connect(service, new DataSourceDescriptor("src", true, false));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        assertTrue(await(consumer.enableTracing(config("src").setDataSourceStopTimeoutMs(200).build())) > 0);
    }

    @Test
    void disableWaitsForDataSourcesThatNotifyOnStop() throws Exception {
        ScriptedProducer producer = ScriptedProducer.connect(service, new DataSourceDescriptor("src", false, true));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(config("src").build()));
        CompletableFuture<Void> disabled = consumer.disableTracing();
        long instance = producer.stopped.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(producer.flushes.isEmpty(), "no final flush before the data source has stopped");
        assertFalse(disabled.isDone());
        producer.endpoint.notifyDataSourceStopped(instance);
        await(disabled);
        assertNotNull(producer.flushes.poll(WAIT_SECONDS, TimeUnit.SECONDS), "then the final flush");
    }

    @Test
    void aDataSourceThatNeverReportsStoppedDoesNotHoldTheStopBackForever() throws Exception {
        ScriptedProducer.connect(service, new DataSourceDescriptor("src", false, true));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(config("src").setDataSourceStopTimeoutMs(200).build()));
        await(consumer.disableTracing());
    }

    /**
     * flush_period_ms, file_write_period_ms, incremental_state_config.clear_period_ms, flush_timeout_ms
     * and data_source_stop_timeout_ms are uint32: 2^31 ms and more is that long, not a negative number
     * that falls back to the default; 0 still means the default. These readers are what the session's
     * timers are given; the next test shows a long flush timeout taking effect in a running service.
     */
    @Test
    void periodsAndTimeoutsOf2To31MsOrMoreAreReadUnsignedNotReplacedByTheDefault() {
        long[] large = {1L << 31, 0xFFFF_FFFFL};
        for (long ms : large) {
            int asInt = (int) ms;
            TraceConfig c = config("src").setFlushPeriodMs(asInt).setFileWritePeriodMs(asInt).setFlushTimeoutMs(asInt)
                    .setDataSourceStopTimeoutMs(asInt)
                    .setIncrementalStateConfig(TraceConfig.IncrementalStateConfig.newBuilder().setClearPeriodMs(asInt))
                    .build();
            assertEquals(ms, SessionLifecycle.flushPeriodMillis(c), "flush_period_ms");
            assertEquals(ms, SessionLifecycle.fileWritePeriodMillis(c), "file_write_period_ms");
            assertEquals(ms, SessionLifecycle.clearPeriodMillis(c), "incremental_state_config.clear_period_ms");
            assertEquals(ms, SessionLifecycle.flushTimeoutMillis(c, 1234), "flush_timeout_ms");
            assertEquals(ms, SessionLifecycle.stopTimeoutMillis(c), "data_source_stop_timeout_ms");
        }
        TraceConfig unset = config("src").build();
        assertEquals(0, SessionLifecycle.flushPeriodMillis(unset), "no periodic flush");
        assertEquals(0, SessionLifecycle.clearPeriodMillis(unset), "no periodic clear");
        assertEquals(SessionLifecycle.DEFAULT_FILE_WRITE_PERIOD_MS, SessionLifecycle.fileWritePeriodMillis(unset));
        assertEquals(1234, SessionLifecycle.flushTimeoutMillis(unset, 1234));
        assertEquals(SessionLifecycle.DEFAULT_STOP_TIMEOUT_MS, SessionLifecycle.stopTimeoutMillis(unset));
    }

    /** A session whose flush_timeout_ms is 2^31 waits for its producer's final flush, not the 1 ms default. */
    @Test
    void aFlushTimeoutOf2To31MsIsNotCutShortByTheServicesDefault() throws Exception {
        TracingService quick = new TracingService(new ServiceConfig(64 * 1024, 4096, null, 8, 1L << 30, 1));
        try {
            ScriptedProducer producer = ScriptedProducer.connect(quick, DataSourceDescriptor.named("src"));
            producer.answerFlushes = false;
            ConsumerEndpoint consumer = quick.connectConsumer(error -> { });
            await(consumer.enableTracing(config("src").setFlushTimeoutMs((int) (1L << 31)).build()));
            CompletableFuture<Void> disabled = consumer.disableTracing();
            Long finalFlush = producer.flushes.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(finalFlush, "the final flush");
            await(quick.status()); // the service thread has handled everything posted so far
            Thread.sleep(50); // far beyond the 1 ms default a signed read would fall back to
            await(quick.status());
            assertFalse(disabled.isDone(), "the session waits for its producer's flush for up to 2^31 ms");
            producer.endpoint.flushComplete(finalFlush);
            await(disabled);
        } finally {
            quick.close();
        }
    }

    @Test
    void flushPeriodFlushesTheProducersRepeatedly() throws Exception {
        ScriptedProducer producer = ScriptedProducer.connect(service, DataSourceDescriptor.named("src"));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(config("src").setFlushPeriodMs(20).build()));
        for (int i = 0; i < 3; i++) {
            assertNotNull(producer.flushes.poll(WAIT_SECONDS, TimeUnit.SECONDS), "periodic flush " + i);
        }
    }

    @Test
    void incrementalStateIsClearedPeriodicallyOnEveryInstanceOfTheSession() throws Exception {
        ScriptedProducer producer = ScriptedProducer.connect(service, DataSourceDescriptor.named("src"));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(config("src").setIncrementalStateConfig(
                TraceConfig.IncrementalStateConfig.newBuilder().setClearPeriodMs(20)).build()));
        long instance = producer.started.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            long[] ids = producer.clears.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(ids, "periodic clear " + i);
            assertEquals(List.of(instance), java.util.Arrays.stream(ids).boxed().collect(java.util.stream.Collectors.toList()));
        }
        await(consumer.disableTracing());
        producer.clears.clear();
        roundTrip(consumer);
        assertTrue(producer.clears.isEmpty(), "no clears once the session stopped");
    }

    @Test
    void aSecondSessionWithTheSameUniqueNameIsRefused() throws Exception {
        ScriptedProducer.connect(service, DataSourceDescriptor.named("src"));
        ConsumerEndpoint first = service.connectConsumer(error -> { });
        await(first.enableTracing(config("src").setUniqueSessionName("nightly").build()));
        ConsumerEndpoint second = service.connectConsumer(error -> { });
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(second.enableTracing(config("src").setUniqueSessionName("nightly").build())));
        assertInstanceOf(SessionNameTakenException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("nightly"));
        ConsumerEndpoint third = service.connectConsumer(error -> { });
        assertTrue(await(third.enableTracing(config("src").setUniqueSessionName("other").build())) > 0);
    }

    @Test
    void fileOptionsAreCheckedAndNamed() throws Exception {
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        assertRefused(consumer, config("src").setWriteIntoFile(true).build(), "output_path");
        assertRefused(consumer, config("src").setFileWritePeriodMs(100).build(), "write_into_file");
        Path notADirectory = Files.createFile(dir.resolve("plain-file"));
        assertRefused(consumer, config("src").setWriteIntoFile(true)
                .setOutputPath(notADirectory.resolve("x.pftrace").toString()).build(),
                "the trace file '" + notADirectory.resolve("x.pftrace") + "' (output_path) cannot be written: "
                        + notADirectory + " is in the way: it exists and is not a directory");
    }

    /**
     * The header (start clocks, config, system) is in the file before any data source is told to start:
     * building it loads the trace format's classes, which once held up the first drain, and every commit
     * behind it, for most of a second.
     */
    @Test
    void aFileSessionWritesItsHeaderBeforeItsDataSourcesStart() throws Exception {
        Path file = dir.resolve("header-first.pftrace");
        ScriptedProducer producer = ScriptedProducer.connect(service, new DataSourceDescriptor("src", false, false));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        consumer.enableTracing(config("src").setWriteIntoFile(true).setOutputPath(file.toString()).build());
        assertNotNull(producer.started.poll(WAIT_SECONDS, TimeUnit.SECONDS), "the data source was started");

        List<TracePacket> header = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        assertEquals(3, header.size(), header.toString());
        assertTrue(header.get(0).hasClockSnapshot() && header.get(0).getFirstPacketOnSequence(), header.get(0).toString());
        assertEquals(file.toString(), header.get(1).getTraceConfig().getOutputPath());
        assertTrue(header.get(2).hasSystemInfo(), header.get(2).toString());

        await(consumer.disableTracing());
        List<TracePacket> all = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        assertEquals(1, all.stream().filter(TracePacket::hasTraceConfig).count(), "the header is written once");
        assertTrue(all.get(all.size() - 1).hasTraceStats(), "the trace still ends with its stats");
    }

    private static void assertRefused(ConsumerEndpoint consumer, TraceConfig config, String field) {
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(consumer.enableTracing(config)));
        assertInstanceOf(InvalidConfigException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains(field), e.getCause().getMessage());
    }

    /**
     * Ten batches of ~40 KiB each pass through a 64 KiB buffer into the file: each batch is written only
     * after the previous one reached the file, so the file is drained periodically while tracing, and
     * nothing is overwritten although the data is six times the buffer.
     */
    @Test
    void writeIntoFileStreamsLongTracesThroughASmallBuffer() throws Exception {
        Path file = dir.resolve("streamed.pftrace");
        int batches = 10;
        int perBatch = 400;
        CompletableFuture<Void> done = new CompletableFuture<>();
        ProducerClient producer = new ProducerClient("p", List.of(new TestDataSource("src",
                (context, cfg) -> TestDataSource.onStart(() -> new Thread(() -> {
                    try (TraceWriter writer = context.newTraceWriter()) {
                        for (int b = 0; b < batches; b++) {
                            for (int i = 0; i < perBatch; i++) {
                                TestPackets.writePadded(writer, 7, (long) b * perBatch + i, 80);
                            }
                            writer.flush();
                            waitForPacketsInFile(file, (b + 1) * perBatch);
                        }
                        done.complete(null);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                    }
                }).start()))));
        producer.connect(p -> service.connectProducer(p, "p", 1, 1));
        CompletableFuture<String> ended = new CompletableFuture<>();
        ConsumerEndpoint consumer = service.connectConsumer(error -> ended.complete(String.valueOf(error)));
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(
                        io.jtrace.protos.DataSourceConfig.newBuilder().setName("src")))
                .setWriteIntoFile(true).setOutputPath(file.toString()).setFileWritePeriodMs(100)
                .build()));
        await(done);
        await(consumer.disableTracing());
        assertEquals("null", await(ended), "ended without error");
        producer.close();

        List<TracePacket> packets = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        List<TracePacket> produced = ServiceTesting.withTag(packets, 7);
        assertEquals(batches * perBatch, produced.size(), ServiceTesting.describeOrder(produced, batches * perBatch));
        for (int i = 0; i < produced.size(); i++) {
            assertEquals(i, produced.get(i).getTimestamp());
        }
        TraceStats stats = ServiceTesting.traceStats(packets);
        assertEquals(0, stats.getBufferStats(0).getChunksOverwritten(), "the buffer never had to overwrite");
        assertTrue(stats.getBufferStats(0).getBytesWritten() > 5 * 64 * 1024, "far more data than the buffer holds");
        assertTrue(packets.get(0).hasClockSnapshot(), "the file starts like any trace");
    }

    private static void waitForPacketsInFile(Path file, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                try {
                    if (ServiceTesting.withTag(Trace.parseFrom(Files.readAllBytes(file)).getPacketList(), 7).size() >= count) {
                        return;
                    }
                } catch (com.google.protobuf.InvalidProtocolBufferException partlyWritten) {
                    // The periodic write is in progress; look again.
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the file never reached " + count + " packets");
    }

    @Test
    void maxFileSizeEndsTheSession() throws Exception {
        Path file = dir.resolve("capped.pftrace");
        AtomicInteger written = new AtomicInteger();
        ProducerClient producer = new ProducerClient("p", List.of(new TestDataSource("src",
                (context, cfg) -> new DataSourceInstance() {
                    private volatile boolean running = true;

                    @Override
                    public void start() {
                        new Thread(() -> {
                            try (TraceWriter writer = context.newTraceWriter()) {
                                while (running) {
                                    TestPackets.writePadded(writer, 7, written.getAndIncrement(), 200);
                                    writer.flush();
                                }
                            }
                        }).start();
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void stop() {
                        running = false;
                    }
                })));
        producer.connect(p -> service.connectProducer(p, "p", 1, 1));
        CompletableFuture<String> ended = new CompletableFuture<>();
        ConsumerEndpoint consumer = service.connectConsumer(error -> ended.complete(String.valueOf(error)));
        await(consumer.enableTracing(config("src").setWriteIntoFile(true).setOutputPath(file.toString())
                .setFileWritePeriodMs(100).setMaxFileSizeBytes(100_000).build()));
        assertEquals("null", await(ended), "the session ended by itself, the file complete");
        producer.close();
        assertTrue(Files.size(file) >= 100_000);
        List<TracePacket> packets = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        assertTrue(packets.get(packets.size() - 1).hasTraceStats(), "the file is a finished trace");
    }

    @Test
    void readBuffersIsRefusedForASessionThatWritesIntoAFile() throws Exception {
        ScriptedProducer.connect(service, DataSourceDescriptor.named("src"));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(config("src").setWriteIntoFile(true)
                .setOutputPath(dir.resolve("f.pftrace").toString()).build()));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(consumer.readBuffers(PacketSink.joined((b, o, l) -> { }))));
        assertTrue(e.getCause().getMessage().contains("f.pftrace"));
    }
}
