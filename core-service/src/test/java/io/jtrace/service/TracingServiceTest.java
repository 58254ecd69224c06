package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.WAIT_SECONDS;
import static io.jtrace.service.ServiceTesting.assertTagged;
import static io.jtrace.service.ServiceTesting.await;
import static io.jtrace.service.ServiceTesting.config;
import static io.jtrace.service.ServiceTesting.producerClient;
import static io.jtrace.service.ServiceTesting.producerPackets;
import static io.jtrace.service.ServiceTesting.read;
import static io.jtrace.service.ServiceTesting.traceStats;
import static io.jtrace.service.ServiceTesting.withTag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TracingServiceTest {
    private static final int UID = 1000;
    private static final int PID = 2000;

    @TempDir
    Path smbDir;

    @RegisterExtension
    final Closer closer = new Closer();

    private TracingService service(int maxSessions, long maxTotalBufferBytes, long defaultFlushTimeoutMillis) {
        return closer.add(new TracingService(new ServiceConfig(SharedMemoryBuffer.DEFAULT_SIZE,
                SharedMemoryBuffer.DEFAULT_PAGE_SIZE, smbDir, maxSessions, maxTotalBufferBytes, defaultFlushTimeoutMillis)));
    }

    private TracingService service() {
        return service(16, 1024L * 1024 * 1024, 10_000);
    }

    private ConsumerEndpoint consumer(TracingService service) {
        return service.connectConsumer(new ServiceTesting.RecordingConsumer());
    }

    /**
     * A producer whose data source "test" writes {@code count} packets tagged {@code tag} on start (on
     * the producer thread), flushes the writer, and completes the returned future.
     */
    private CompletableFuture<Void> writingProducer(TracingService service, String name, long tag, int count,
                                                    TestDataSource[] sourceOut) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            try (TraceWriter writer = ctx.newTraceWriter()) {
                for (int i = 0; i < count; i++) {
                    TestPackets.write(writer, tag, i);
                }
            }
            written.complete(null);
        }));
        if (sourceOut != null) {
            sourceOut[0] = source;
        }
        closer.add(producerClient(service, name, UID, PID, source));
        return written;
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(future));
        return e.getCause();
    }

    // ------------------------------------------------------------------ config validation and limits

    private static TraceConfig.DataSource dataSource(String name, int targetBuffer) {
        return TraceConfig.DataSource.newBuilder()
                .setConfig(DataSourceConfig.newBuilder().setName(name).setTargetBuffer(targetBuffer)).build();
    }

    private static TraceConfig.BufferConfig buffer(int sizeKb) {
        return TraceConfig.BufferConfig.newBuilder().setSizeKb(sizeKb).build();
    }

    static Stream<Arguments> invalidConfigs() {
        return Stream.of(
                Arguments.of(Named.of("no buffers", TraceConfig.newBuilder()
                        .addDataSources(dataSource("test", 0)).build()), "buffers"),
                Arguments.of(Named.of("buffer of size_kb 0", TraceConfig.newBuilder()
                        .addBuffers(buffer(64)).addBuffers(buffer(0))
                        .addDataSources(dataSource("test", 0)).build()), "size_kb"),
                Arguments.of(Named.of("buffer smaller than a page", TraceConfig.newBuilder()
                        .addBuffers(buffer(64)).addBuffers(buffer(8))
                        .addDataSources(dataSource("test", 0)).build()),
                        "buffers[1].size_kb is 8: smaller than one 16 KiB page of the shared memory buffer"),
                Arguments.of(Named.of("no data sources", TraceConfig.newBuilder()
                        .addBuffers(buffer(64)).build()), "data_sources"),
                Arguments.of(Named.of("target_buffer out of range", TraceConfig.newBuilder()
                        .addBuffers(buffer(64)).addBuffers(buffer(64))
                        .addDataSources(dataSource("test", 0)).addDataSources(dataSource("other", 2)).build()),
                        "target_buffer"),
                Arguments.of(Named.of("empty data source name", TraceConfig.newBuilder()
                        .addBuffers(buffer(64)).addDataSources(dataSource("", 0)).build()), "name"));
    }

    @ParameterizedTest
    @MethodSource("invalidConfigs")
    void invalidConfigIsRefusedWithAMessageNamingTheField(TraceConfig invalid, String field) throws Exception {
        TracingService service = service();
        ConsumerEndpoint consumer = consumer(service);

        Throwable failure = failureOf(consumer.enableTracing(invalid));

        assertInstanceOf(InvalidConfigException.class, failure);
        assertTrue(failure.getMessage().contains(field), "'" + failure.getMessage() + "' should name " + field);
        // Nothing was half-created: the same consumer can start a valid session right after.
        assertTrue(await(consumer.enableTracing(config(64, "test"))) > 0);
    }

    @Test
    void sessionsBeyondTheServiceLimitAreRefused() throws Exception {
        TracingService service = service(2, 1024L * 1024 * 1024, 10_000);
        ConsumerEndpoint first = consumer(service);
        ConsumerEndpoint second = consumer(service);
        ConsumerEndpoint third = consumer(service);
        await(first.enableTracing(config(64, "test")));
        await(second.enableTracing(config(64, "test")));

        assertInstanceOf(ServiceLimitException.class, failureOf(third.enableTracing(config(64, "test"))));

        await(first.freeBuffers());
        assertTrue(await(third.enableTracing(config(64, "test"))) > 0, "a freed session gives its slot back");
    }

    @Test
    void buffersBeyondTheServiceMemoryLimitAreRefused() throws Exception {
        TracingService service = service(16, 1024 * 1024, 10_000);
        ConsumerEndpoint first = consumer(service);
        ConsumerEndpoint second = consumer(service);

        assertInstanceOf(ServiceLimitException.class, failureOf(first.enableTracing(config(2048, "test"))),
                "one session asking for more than the limit");
        await(first.enableTracing(config(768, "test")));
        assertInstanceOf(ServiceLimitException.class, failureOf(second.enableTracing(config(512, "test"))),
                "the sum of all sessions' buffers counts");

        await(first.freeBuffers());
        assertTrue(await(second.enableTracing(config(512, "test"))) > 0, "freed buffers give their memory back");
    }

    /** size_kb is a uint32: its largest value is 4 TiB, refused as over the limit, not taken for -1 KiB. */
    @Test
    void aBufferSizePastTwoToTheThirtyOneKilobytesIsRefusedAsOverTheLimit() throws Exception {
        TracingService service = service(16, 1024 * 1024, 10_000);
        Throwable failure = failureOf(consumer(service).enableTracing(config((int) 4_294_967_295L, "test")));
        assertInstanceOf(ServiceLimitException.class, failure);
        assertTrue(failure.getMessage().contains("trace buffers of 4398046510080 bytes"), failure.getMessage());
    }

    // ------------------------------------------------------------------ session lifetime

    @Test
    void durationMsEndsTheSessionByItself() throws Exception {
        TracingService service = service();
        CompletableFuture<Void> written = writingProducer(service, "producer", 5, 10, null);
        ServiceTesting.RecordingConsumer callbacks = new ServiceTesting.RecordingConsumer();
        ConsumerEndpoint consumer = service.connectConsumer(callbacks);

        await(consumer.enableTracing(config(256, "test").toBuilder().setDurationMs(200).build()));
        await(written);

        assertEquals("", await(callbacks.disabled), "the session ended without error and without disableTracing");
        List<TracePacket> packets = read(consumer);
        assertTagged(producerPackets(packets), 5, 10);
        traceStats(packets); // only written once the session is disabled
    }

    /**
     * What the service tells every data source beside its config: whether its buffer overwrites chunks
     * nobody read (a ring not streamed into a file), and that it reads a chunk's "packets need incremental
     * state" flag, so writers may leave that flag out of their packets (an older daemon does not say so).
     */
    @Test
    void everyDataSourceLearnsWhetherItsBufferOverwritesAndThatTheServiceReadsTheChunksIncrementalStateFlag()
            throws Exception {
        TracingService service = service();
        ScriptedProducer producer = ScriptedProducer.connect(service, DataSourceDescriptor.named("test"));
        ConsumerEndpoint consumer = consumer(service);

        await(consumer.enableTracing(config(256, "test")));
        DataSourceConfig sent = producer.startConfigs.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        assertNotNull(sent, "the data source started");
        assertTrue(sent.getNeedsIncrementalStateByChunk(), sent.toString());
        assertTrue(sent.getTargetBufferOverwrites(), "a ring nobody streams: " + sent);
        await(consumer.disableTracing());

        Path file = smbDir.resolve("streamed.pftrace"); // the test's own directory
        ConsumerEndpoint streaming = consumer(service);
        await(streaming.enableTracing(config(256, "test").toBuilder().setWriteIntoFile(true)
                .setOutputPath(file.toString()).build()));
        DataSourceConfig streamed = producer.startConfigs.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        assertNotNull(streamed, "the second session's data source started");
        assertTrue(streamed.getNeedsIncrementalStateByChunk(), streamed.toString());
        assertFalse(streamed.getTargetBufferOverwrites(), "a ring streamed into a file overwrites nothing unread: "
                + streamed);
        await(streaming.disableTracing());
        assertTrue(Files.exists(file), "the streamed session wrote its file");
    }

    @Test
    void producerThatNeverAnswersFlushDoesNotHangDisable() throws Exception {
        TracingService service = service(16, 1024L * 1024 * 1024, 600_000); // only the config's timeout can end it
        ScriptedProducer mute = ScriptedProducer.connect(service, DataSourceDescriptor.named("test"));
        mute.answerFlushes = false;
        ConsumerEndpoint consumer = consumer(service);

        await(consumer.enableTracing(config(256, "test").toBuilder().setFlushTimeoutMs(200).build()));
        assertNotNull(mute.started.poll(WAIT_SECONDS, TimeUnit.SECONDS), "the mute producer's data source started");
        await(consumer.disableTracing());
        TraceStats stats = traceStats(read(consumer));

        assertTrue(stats.getFlushesFailed() >= 1, "the timed-out flush is reported: " + stats);
    }

    @Test
    void flushWhileTracingMakesWrittenPacketsReadableBeforeDisable() throws Exception {
        TracingService service = service();
        CompletableFuture<Void> written = writingProducer(service, "producer", 3, 50, null);
        ConsumerEndpoint consumer = consumer(service);

        await(consumer.enableTracing(config(256, "test")));
        await(written);
        assertTrue(await(consumer.flush(10_000)), "the producer acked the flush");
        List<TracePacket> whileRunning = read(consumer);

        assertTagged(producerPackets(whileRunning), 3, 50);
        assertTrue(whileRunning.stream().noneMatch(TracePacket::hasTraceStats), "trace_stats only once disabled");
        await(consumer.disableTracing());
        assertEquals(List.of(), producerPackets(read(consumer)), "nothing is delivered twice");
    }

    // ------------------------------------------------------------------ which producers take part

    @Test
    void dataSourceOfAProducerConnectingAfterTheSessionStartedStillStarts() throws Exception {
        TracingService service = service();
        ConsumerEndpoint consumer = consumer(service);
        await(consumer.enableTracing(config(256, "test")));

        CompletableFuture<Void> written = writingProducer(service, "late", 9, 20, null);
        await(written);
        await(consumer.disableTracing());

        assertTagged(producerPackets(read(consumer)), 9, 20);
    }

    @Test
    void producerNameFilterExcludesOtherProducers() throws Exception {
        TracingService service = service();
        TestDataSource[] alphaSource = new TestDataSource[1];
        TestDataSource[] betaSource = new TestDataSource[1];
        CompletableFuture<Void> alphaWritten = writingProducer(service, "alpha", 1, 20, alphaSource);
        writingProducer(service, "beta", 2, 20, betaSource);
        ConsumerEndpoint consumer = consumer(service);
        TraceConfig filtered = TraceConfig.newBuilder()
                .addBuffers(buffer(256))
                .addDataSources(dataSource("test", 0).toBuilder().addProducerNameFilter("alpha"))
                .build();

        await(consumer.enableTracing(filtered));
        await(alphaWritten);
        await(consumer.disableTracing());
        List<TracePacket> packets = producerPackets(read(consumer));

        assertTagged(packets, 1, 20);
        assertEquals(List.of(), withTag(packets, 2), "beta is not in the filter");
        assertEquals(1, alphaSource[0].created.get());
        assertEquals(0, betaSource[0].created.get(), "beta's data source was never set up");
    }

    @Test
    void twoConcurrentSessionsEachGetOnlyTheirOwnData() throws Exception {
        TracingService service = service();
        int count = 100;
        List<CompletableFuture<Long>> writtenBySession = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        AtomicReference<Integer> instances = new AtomicReference<>(0);
        TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            long session = cfg.getTracingSessionId(); // tag each instance's packets with its session
            try (TraceWriter writer = ctx.newTraceWriter()) {
                for (int i = 0; i < count; i++) {
                    TestPackets.write(writer, session, i);
                }
            }
            writtenBySession.get(instances.getAndUpdate(n -> n + 1)).complete(session);
        }));
        closer.add(producerClient(service, "shared", UID, PID, source));
        ConsumerEndpoint first = consumer(service);
        ConsumerEndpoint second = consumer(service);

        long firstSession = await(first.enableTracing(config(256, "test")));
        long secondSession = await(second.enableTracing(config(256, "test")));
        await(writtenBySession.get(0));
        await(writtenBySession.get(1));
        await(first.disableTracing());
        await(second.disableTracing());
        List<TracePacket> firstPackets = producerPackets(read(first));
        List<TracePacket> secondPackets = producerPackets(read(second));

        assertTrue(firstSession != secondSession);
        assertEquals(2, source.created.get(), "one instance per session");
        assertTagged(firstPackets, firstSession, count);
        assertTagged(secondPackets, secondSession, count);
        assertEquals(count, firstPackets.size(), "the first session got nothing of the second's");
        assertEquals(count, secondPackets.size(), "the second session got nothing of the first's");
    }

    /**
     * The trusted pid / uid come from the producer's connection. A producer (say a JVM that exited) that
     * goes away before the consumer reads must not turn its already-committed packets anonymous.
     */
    @Test
    void packetsOfAProducerThatDisconnectedKeepTheirTrustedPidAndUid() throws Exception {
        TracingService service = service();
        AtomicReference<ProducerEndpoint> endpoint = new AtomicReference<>();
        CompletableFuture<Void> written = new CompletableFuture<>();
        TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            try (TraceWriter writer = ctx.newTraceWriter()) {
                for (int i = 0; i < 10; i++) {
                    TestPackets.write(writer, 4, i);
                }
            }
            written.complete(null);
        }));
        ProducerClient client = new ProducerClient("leaving", List.of(source));
        client.connect(p -> {
            endpoint.set(service.connectProducer(p, "leaving", UID, PID));
            return endpoint.get();
        });
        closer.add(client);
        ConsumerEndpoint consumer = consumer(service);

        await(consumer.enableTracing(config(256, "test")));
        await(written);
        assertTrue(await(consumer.flush(10_000)));
        endpoint.get().disconnect();
        await(consumer.disableTracing());
        List<TracePacket> packets = producerPackets(read(consumer));

        assertTagged(packets, 4, 10);
        TestPackets.assertAttributedTo(packets, PID, UID);
    }

    /**
     * Trust follows the connection, never the producer's say: the agent's own producer, connected in this
     * JVM, has its packets framed as they are (even one that sets a field only the service may set), while
     * the same packets from a producer connected as another process are checked, refused and counted.
     */
    @Test
    void onlyAProducerConnectedInThisJvmHasItsPacketsFramedWithoutChecks() throws Exception {
        for (boolean inProcess : new boolean[] {true, false}) {
            TracingService service = service();
            CompletableFuture<Void> written = new CompletableFuture<>();
            TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
                try (TraceWriter writer = ctx.newTraceWriter()) {
                    for (int i = 0; i < 5; i++) {
                        TestPackets.write(writer, 6, i);
                        ProtoWriter p = writer.beginPacket();
                        p.varint(3, 777); // trusted_uid: the service's to write
                        p.beginNested(11);
                        p.varint(11, 7);
                        p.endNested();
                        writer.endPacket();
                    }
                }
                written.complete(null);
            }));
            ProducerClient client = new ProducerClient("p", List.of(source));
            client.connect(p -> inProcess ? service.connectInProcessProducer(p, "p") : service.connectProducer(p, "p", UID, PID));
            closer.add(client);
            ConsumerEndpoint consumer = consumer(service);

            await(consumer.enableTracing(config(256, "test")));
            await(written);
            await(consumer.disableTracing());
            List<TracePacket> all = read(consumer);
            List<TracePacket> packets = producerPackets(all);

            assertTagged(packets, 6, 5);
            long setsTrustedUid = packets.stream().filter(p -> p.getTrackEvent().getTrackUuid() == 7).count();
            TraceStats stats = traceStats(all);
            if (inProcess) {
                assertEquals(5, setsTrustedUid, "an in-process producer's packets go out as written");
                assertEquals(0, stats.getInvalidPackets());
                TestPackets.assertAttributedTo(packets.subList(0, 1), (int) ProcessHandle.current().pid(), ProcessIdentity.uid());
            } else {
                assertEquals(0, setsTrustedUid, "another process's packets that set trusted_uid are refused");
                assertEquals(5, stats.getInvalidPackets());
            }
        }
    }

    // ------------------------------------------------------------------ hostile producers

    /** Writes one packet into a chunk the fake producer takes from page 0 and returns its index. */
    private static int handMadeChunk(SharedMemoryAbi abi, int writerId, int chunkId, TracePacket packet,
                                     boolean complete) {
        abi.tryPartitionPage(0, PageLayout.DIV4);
        int index = abi.tryAcquireChunkForWriting(0, PageLayout.DIV4);
        assertTrue(index >= 0, "page 0 has a free chunk");
        int offset = abi.chunkOffset(0, PageLayout.DIV4, index);
        byte[] bytes = packet.toByteArray();
        abi.smb().buffer().putInt(offset + ChunkHeader.SIZE, WireFormat.redundantVarint(bytes.length));
        abi.smb().buffer().put(offset + ChunkHeader.SIZE + WireFormat.RESERVED_SIZE_BYTES, bytes);
        abi.writeChunkHeader(offset, chunkId, writerId, ChunkHeader.packetsWord(1, 0));
        if (complete) {
            abi.releaseChunkAsComplete(0, index);
        }
        return index;
    }

    @Test
    void badCommitsAreCountedAsAbiViolationsAndDoNotDisturbAGoodProducer() throws Exception {
        TracingService service = service();
        CompletableFuture<Void> goodWritten = writingProducer(service, "good", 1, 500, null);
        HostileProducer fake = HostileProducer.connect(service, "fake", UID + 1, PID + 1, "test");
        ConsumerEndpoint consumer = consumer(service);

        await(consumer.enableTracing(config(1024, "test")));
        int target = await(fake.started).getTargetBuffer();
        SharedMemoryAbi abi = new SharedMemoryAbi(fake.smb);
        TracePacket fakePacket = TracePacket.newBuilder()
                .setTrackEvent(TrackEvent.newBuilder().setName("from-the-fake").setTrackUuid(99)).build();
        int beingWritten = handMadeChunk(abi, 5, 0, fakePacket, false);
        int complete = handMadeChunk(abi, 6, 0, fakePacket, true);
        CommitRequest bad = new CommitRequest(8);
        bad.add(abi.pageCount(), 0, target); // page out of range
        bad.add(-1, 0, target); // negative page
        bad.add(1, 0, target); // a free, unpartitioned page
        bad.add(0, beingWritten, target); // still BEING_WRITTEN, not COMPLETE
        bad.add(0, 13, target); // no such chunk in a 4-chunk page
        bad.add(0, complete, target); // legitimate ...
        bad.add(0, complete, target); // ... and committed twice: FREE by now
        fake.endpoint.commit(bad);
        await(goodWritten);
        await(consumer.disableTracing());
        List<TracePacket> packets = read(consumer);

        List<TracePacket> fromProducers = producerPackets(packets);
        assertTagged(fromProducers, 1, 500);
        assertTrue(withTag(fromProducers, 1).stream().noneMatch(p -> p.getPreviousPacketDropped() != 0));
        assertEquals(List.of(fakePacket), withTag(fromProducers, 99).stream()
                .map(TestPackets::withoutServiceFields).toList(), "the one legitimate commit of the fake got through");
        assertEquals(PID + 1, withTag(fromProducers, 99).get(0).getTrustedPid());
        assertEquals(6, traceStats(packets).getBufferStats(0).getAbiViolations());
    }
}
