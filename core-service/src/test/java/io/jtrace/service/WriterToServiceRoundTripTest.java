package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.assertTagged;
import static io.jtrace.service.ServiceTesting.await;
import static io.jtrace.service.ServiceTesting.config;
import static io.jtrace.service.ServiceTesting.producerClient;
import static io.jtrace.service.ServiceTesting.producerPackets;
import static io.jtrace.service.ServiceTesting.read;
import static io.jtrace.service.ServiceTesting.servicePackets;
import static io.jtrace.service.ServiceTesting.traceStats;
import static io.jtrace.service.ServiceTesting.withTag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.TraceWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.ChunkArbiter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjIntConsumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TraceWriter → SMB → commit thread → service → trace buffer → consumer, over the real ABI. */
class WriterToServiceRoundTripTest {
    private static final int PRODUCER_UID = 1234;
    private static final int PRODUCER_PID = 4321;

    @TempDir
    Path smbDir;

    @RegisterExtension
    final Closer closer = new Closer();

    /** On 4 KiB pages: the SMB sizes below count chunks of that size. */
    private TracingService service(int smbSize) {
        return closer.add(new TracingService(new ServiceConfig(smbSize, 4096,
                smbDir, 16, 1024L * 1024 * 1024, 10_000)));
    }

    /** A producer of this JVM: trusted, its writers' hints and sequence ids taken. */
    private void connectInProcess(TracingService service, TestDataSource source) {
        ProducerClient client = new ProducerClient("in-process", List.of(source));
        client.connect(p -> service.connectInProcessProducer(p, "in-process"));
        closer.add(client);
    }

    private ProducerClient connect(TracingService service, String name, TestDataSource source) {
        return closer.add(producerClient(service, name, PRODUCER_UID, PRODUCER_PID, source));
    }

    private static int sequenceIdOf(List<TracePacket> producerPackets, long tag) {
        Set<Integer> ids = withTag(producerPackets, tag).stream().map(TracePacket::getTrustedPacketSequenceId)
                .collect(Collectors.toSet());
        assertEquals(1, ids.size(), "one sequence id per writer, got " + ids + " for writer " + tag);
        return ids.iterator().next();
    }

    private static int firstIndex(List<TracePacket> packets, java.util.function.Predicate<TracePacket> p) {
        for (int i = 0; i < packets.size(); i++) {
            if (p.test(packets.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndex(List<TracePacket> packets, java.util.function.Predicate<TracePacket> p) {
        for (int i = packets.size() - 1; i >= 0; i--) {
            if (p.test(packets.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Writers owned by the producer thread: all written in start(), flushed on flush(), closed on stop(). */
    private static final class ProducerThreadWriters implements DataSourceInstance {
        private final DataSourceContext context;
        private final long[] tags;
        private final int count;
        private final CompletableFuture<Long> written;
        private final List<TraceWriter> writers = new ArrayList<>();

        ProducerThreadWriters(DataSourceContext context, long[] tags, int count, CompletableFuture<Long> written) {
            this.context = context;
            this.tags = tags;
            this.count = count;
            this.written = written;
        }

        @Override
        public void start() {
            for (int t = 0; t < tags.length; t++) {
                writers.add(context.newTraceWriter());
            }
            for (int i = 0; i < count; i++) {
                for (int t = 0; t < tags.length; t++) {
                    TestPackets.write(writers.get(t), tags[t], i);
                }
            }
            written.complete(writers.stream().mapToLong(TraceWriter::droppedPackets).sum());
        }

        @Override
        public void flush() {
            writers.forEach(TraceWriter::flush);
        }

        @Override
        public void stop() {
            writers.forEach(TraceWriter::close);
            writers.clear();
        }
    }

    /**
     * Starts a daemon thread {@code name} that writes packets 0..count-1 with {@code write} through a
     * TraceWriter of its own once {@code consumer} is known. After every {@code batch} packets it waits for
     * a flush of that consumer, which returns once the service has moved what was committed, so the SMB
     * never fills. Completes {@code done} with the packets the writer dropped, or with what went wrong.
     */
    private static void startPacedWriter(String name, DataSourceContext ctx, Future<ConsumerEndpoint> consumer,
                                         int count, int batch, ObjIntConsumer<TraceWriter> write,
                                         CompletableFuture<Long> done) {
        Thread thread = new Thread(() -> {
            try (TraceWriter writer = ctx.newTraceWriter()) {
                ConsumerEndpoint pacer = consumer.get();
                for (int i = 0; i < count; i++) {
                    write.accept(writer, i);
                    if ((i + 1) % batch == 0 && !pacer.flush(10_000).get(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("a pacing flush timed out");
                    }
                }
                writer.flush();
                done.complete(writer.droppedPackets());
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** A source whose instance writes {@code count} packets per tag, each tag on its own thread. */
    private static TestDataSource threadWriters(long[] tags, int count, CompletableFuture<Long> written) {
        return new TestDataSource("test", (ctx, cfg) -> new ProducerThreadWriters(ctx, tags, count, written));
    }

    private static final int LOWEST_PROPOSAL = WireFormat.MAX_SLOT_SEQUENCE_ID + 1 - ChunkArbiter.PROPOSALS;

    /**
     * A writer hands over a page (16 KiB) with only a few packets in it when it is flushed or closed: a
     * ring stores it only as far as its packets go, so a small ring keeps its room for data. So too for a
     * producer the service does not trust (through {@code jtrace daemon}): its word on where its packets
     * end bounds only what of its own chunk is kept, and its packets are still checked.
     */
    @ParameterizedTest(name = "trusted {0}")
    @ValueSource(booleans = {true, false})
    void aRingStoresAHandedOverPageOnlyAsFarAsItsPacketsGo(boolean trusted) throws Exception {
        TracingService service = closer.add(new TracingService(new ServiceConfig(SharedMemoryBuffer.DEFAULT_SIZE,
                16 * 1024, smbDir, 16, 1024L * 1024 * 1024, 10_000)));
        // More than a first chunk (about 1 KiB) holds, far less than a page: the writer goes on in a page.
        int count = 200;
        long[] tags = {11};
        CompletableFuture<Long> written = new CompletableFuture<>();
        if (trusted) {
            connectInProcess(service, threadWriters(tags, count, written));
        } else {
            connect(service, "untrusted", threadWriters(tags, count, written));
        }
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());

        await(consumer.enableTracing(config(64, "test")));
        assertEquals(0L, await(written));
        assertTrue(await(consumer.flush(10_000)), "the writer handed its page over");
        int bufferId = await(service.status()).sessions().get(0).buffers().get(0).id();
        io.jtrace.service.buffer.BufferCounters counters = await(service.bufferCounters(bufferId));
        await(consumer.disableTracing());
        List<TracePacket> fromProducer = producerPackets(read(consumer));

        assertTagged(fromProducer, tags[0], count);
        assertEquals(count, fromProducer.size(), "every packet exactly once");
        long packetBytes = fromProducer.stream().mapToLong(p -> p.getSerializedSize() + 2).sum();
        assertTrue(counters.chunksWritten() >= 2, "a first chunk, then a page: " + counters.chunksWritten());
        assertTrue(counters.bytesWritten() < packetBytes + 2048,
                "stored " + counters.bytesWritten() + " bytes for " + packetBytes + " bytes of packets in "
                        + counters.chunksWritten() + " chunks");
    }

    @Test
    void anInProcessProducersWritersKeepTheSequenceIdsTheyWroteIntoTheirSlots() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 2000;
        long[] tags = {11, 22};
        CompletableFuture<Long> written = new CompletableFuture<>();
        connectInProcess(service, threadWriters(tags, count, written));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());

        await(consumer.enableTracing(config(4096, "test")));
        assertEquals(0L, await(written));
        await(consumer.disableTracing());
        List<TracePacket> fromProducer = producerPackets(read(consumer));

        assertEquals(2 * count, fromProducer.size(), "every packet exactly once");
        for (long tag : tags) {
            assertTagged(fromProducer, tag, count);
        }
        int seqA = sequenceIdOf(fromProducer, tags[0]);
        int seqB = sequenceIdOf(fromProducer, tags[1]);
        assertNotEquals(seqA, seqB);
        assertTrue(seqA >= LOWEST_PROPOSAL && seqB >= LOWEST_PROPOSAL, "the writers' own ids: " + seqA + ", " + seqB);
        assertEquals(2, fromProducer.stream().filter(TracePacket::getFirstPacketOnSequence).count());
    }

    @Test
    void anInProcessWriterOfAStreamedSessionAppendsItsChunksToTheFileItselfOnceInOrderWithItsIdentity() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 3000;
        long[] tags = {11, 22};
        CompletableFuture<Long> written = new CompletableFuture<>();
        connectInProcess(service, threadWriters(tags, count, written));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
        Path file = smbDir.resolve("streamed.pftrace");

        await(consumer.enableTracing(config(4096, "test").toBuilder().setWriteIntoFile(true)
                .setOutputPath(file.toString()).build()));
        assertEquals(0L, await(written));
        assertTrue(await(consumer.flush(10_000)), "the writers' chunks are committed");
        int bufferId = await(service.status()).sessions().get(0).buffers().get(0).id();
        await(consumer.disableTracing());
        io.jtrace.service.buffer.BufferCounters counters = await(service.bufferCounters(bufferId));

        List<TracePacket> fromProducer = producerPackets(
                io.jtrace.protos.Trace.parseFrom(java.nio.file.Files.readAllBytes(file)).getPacketList());
        for (long tag : tags) {
            assertTagged(fromProducer, tag, count);
        }
        assertEquals(2 * count, fromProducer.size(), "every packet exactly once");
        // Each writer opens its sequence in the file itself and appends its complete chunks there, on its
        // own thread; only the chunks they still held at the end went through the service.
        assertTrue(counters.chunksPromoted() > 0, "chunks the writers appended themselves: "
                + counters.chunksPromoted() + " of " + counters.chunksWritten());
        assertTrue(counters.chunksWritten() - counters.chunksPromoted() <= tags.length,
                "at most the chunks held at the end went through the service: " + counters.chunksWritten() + " written, "
                        + counters.chunksPromoted() + " appended by their writers");
        assertEquals(counters.chunksWritten(), counters.chunksRead(), "every chunk written was read");
        assertTrue(fromProducer.stream().noneMatch(TracePacket::hasPreviousPacketDropped));
        TestPackets.assertAttributedTo(fromProducer, ProcessIdentity.pid(), ProcessIdentity.uid());
    }

    @Test
    void everyPacketArrivesOnceInWriterOrderWithTrustedFieldsAndServicePackets() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 2000;
        long[] tags = {11, 22};
        CompletableFuture<Long> written = new CompletableFuture<>();
        connect(service, "producer", threadWriters(tags, count, written));
        ServiceTesting.RecordingConsumer callbacks = new ServiceTesting.RecordingConsumer();
        ConsumerEndpoint consumer = service.connectConsumer(callbacks);
        TraceConfig traceConfig = config(4096, "test");

        await(consumer.enableTracing(traceConfig));
        assertEquals(0L, await(written), "the writers dropped packets: the SMB is too small for this test");
        await(consumer.disableTracing());
        List<TracePacket> packets = read(consumer);

        List<TracePacket> fromProducer = producerPackets(packets);
        assertEquals(2 * count, fromProducer.size(), "every packet exactly once");
        for (long tag : tags) {
            assertTagged(fromProducer, tag, count);
        }
        int seqA = sequenceIdOf(fromProducer, tags[0]);
        int seqB = sequenceIdOf(fromProducer, tags[1]);
        assertNotEquals(TracingService.SERVICE_SEQUENCE_ID, seqA);
        assertNotEquals(TracingService.SERVICE_SEQUENCE_ID, seqB);
        assertNotEquals(seqA, seqB, "each writer is its own sequence");
        assertTrue(seqA < LOWEST_PROPOSAL && seqB < LOWEST_PROPOSAL,
                "another process's writers get the service's ids, not the ones they wrote: " + seqA + ", " + seqB);
        TestPackets.assertAttributedTo(fromProducer, PRODUCER_PID, PRODUCER_UID);
        for (TracePacket p : fromProducer) {
            assertTrue(!p.hasPreviousPacketDropped() || p.getPreviousPacketDropped() == 0, "nothing was lost");
        }
        assertEquals(2, fromProducer.stream().filter(TracePacket::getFirstPacketOnSequence).count(),
                "first_packet_on_sequence once per writer");

        // The service's own sequence: clock snapshot first, trace config, trace stats at the end.
        assertEquals(TracingService.SERVICE_SEQUENCE_ID, packets.get(0).getTrustedPacketSequenceId());
        int firstSnapshot = firstIndex(packets, p -> p.hasClockSnapshot()
                && p.getTrustedPacketSequenceId() == TracingService.SERVICE_SEQUENCE_ID);
        int firstProducerPacket = firstIndex(packets, p ->
                p.getTrustedPacketSequenceId() != TracingService.SERVICE_SEQUENCE_ID);
        assertTrue(firstSnapshot >= 0 && firstSnapshot < firstProducerPacket,
                "a clock snapshot precedes every producer packet");
        ClockSnapshot snapshot = packets.get(firstSnapshot).getClockSnapshot();
        Set<Integer> clockIds = snapshot.getClocksList().stream().map(ClockSnapshot.Clock::getClockId)
                .collect(Collectors.toSet());
        assertTrue(clockIds.containsAll(Set.of(BuiltinClock.BUILTIN_CLOCK_BOOTTIME_VALUE,
                BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE, BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE)), clockIds.toString());
        List<TracePacket> own = servicePackets(packets);
        assertTrue(own.get(0).getFirstPacketOnSequence());
        assertEquals(List.of(traceConfig), own.stream().filter(TracePacket::hasTraceConfig)
                .map(TracePacket::getTraceConfig).collect(Collectors.toList()));
        int stats = lastIndex(packets, TracePacket::hasTraceStats);
        assertTrue(stats > lastIndex(packets, p -> p.getTrustedPacketSequenceId() != TracingService.SERVICE_SEQUENCE_ID),
                "trace_stats comes after the data");
        TraceStats traceStats = traceStats(packets);
        assertEquals(1, traceStats.getBufferStatsCount());
        TraceStats.BufferStats buffer = traceStats.getBufferStats(0);
        assertEquals(4096L * 1024, buffer.getBufferSize());
        assertTrue(buffer.getChunksWritten() > 0);
        assertEquals(0, buffer.getAbiViolations());
        assertEquals(0, buffer.getChunksOverwritten());
        assertEquals(0, buffer.getChunksDiscarded());
        assertEquals(0, traceStats.getFlushesFailed());
        assertTrue(callbacks.disabled.isDone(), "the consumer was told the session ended");
    }

    @Test
    void packetsInAChunkAnIdleWriterStillHoldsAreScrapedAtDisable() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 5;
        long tag = 7;
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> written = new CompletableFuture<>();
        connect(service, "producer", new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            Thread thread = new Thread(() -> {
                TraceWriter writer = ctx.newTraceWriter();
                for (int i = 0; i < count; i++) {
                    TestPackets.write(writer, tag, i);
                }
                written.complete(null);
                try {
                    release.await(); // idle: holds its chunk, never flushes, until the test ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                writer.close();
            }, "idle-writer");
            thread.setDaemon(true);
            thread.start();
        })));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
        try {
            await(consumer.enableTracing(config(1024, "test")));
            await(written);
            assertTrue(await(consumer.flush(10_000)));
            assertEquals(List.of(), producerPackets(read(consumer)),
                    "precondition: the packets are not committed, the writer still holds their chunk");

            await(consumer.disableTracing());
            List<TracePacket> packets = producerPackets(read(consumer));

            assertTagged(packets, tag, count);
        } finally {
            release.countDown();
        }
    }

    @Test
    void fourWriterThreadsThroughASmallSmbLoseNothing() throws Exception {
        int smbSize = 64 * 1024;
        TracingService service = service(smbSize);
        int threads = 4;
        int perThread = 20_000;
        // A writer's share of the 64 chunks of the SMB is 16; 200 small packets fill about 6 of them. After
        // each batch the writer waits for a flush, which returns once the service has moved what it
        // committed, so the SMB never fills and no packet has to be dropped.
        int batch = 200;
        CompletableFuture<ConsumerEndpoint> consumerRef = new CompletableFuture<>();
        List<CompletableFuture<Long>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(new CompletableFuture<>());
        }
        connect(service, "producer", new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            for (int t = 0; t < threads; t++) {
                long tag = t + 1;
                startPacedWriter("writer-" + tag, ctx, consumerRef, perThread, batch,
                        (writer, i) -> TestPackets.write(writer, tag, i), done.get(t));
            }
        })));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());

        await(consumer.enableTracing(config(32 * 1024, "test")));
        consumerRef.complete(consumer); // the writers start once tracing is enabled
        long dropped = 0;
        for (CompletableFuture<Long> d : done) {
            dropped += d.get(120, TimeUnit.SECONDS);
        }
        await(consumer.disableTracing());
        List<TracePacket> packets = read(consumer);

        List<TracePacket> fromProducer = producerPackets(packets);
        assertEquals(0, dropped, "the writers dropped packets although the test paces them");
        assertEquals((long) threads * perThread, fromProducer.size());
        Set<Integer> sequenceIds = new HashSet<>();
        for (int t = 1; t <= threads; t++) {
            assertTagged(fromProducer, t, perThread);
            sequenceIds.add(sequenceIdOf(fromProducer, t));
        }
        assertEquals(threads, sequenceIds.size(), "one distinct sequence per writer thread");
        assertTrue(fromProducer.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0));
        TraceStats.BufferStats buffer = traceStats(packets).getBufferStats(0);
        assertEquals(0, buffer.getChunksOverwritten());
        assertEquals(0, buffer.getAbiViolations());
    }

    /**
     * Packet sizes swept byte by byte, so that packets end at every distance from a chunk's end (including
     * 0–3 bytes, too few for the next packet's size field), plus packets larger than a default chunk that
     * need a page laid out in fewer, larger chunks.
     */
    @Test
    void packetsOfEverySizeAcrossChunkBoundariesArriveIntact() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        List<Integer> paddings = new ArrayList<>();
        for (int pad = 0; pad <= 1300; pad++) {
            paddings.add(pad);
        }
        for (int pad = 1350; pad <= 3900; pad += 50) {
            paddings.add(pad);
        }
        long tag = 3;
        // A flush every 16 packets keeps even 16 page-sized packets well within the 64-page SMB.
        int batch = 16;
        CompletableFuture<ConsumerEndpoint> consumerRef = new CompletableFuture<>();
        CompletableFuture<Long> done = new CompletableFuture<>();
        connect(service, "producer", new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() ->
                startPacedWriter("sizes-writer", ctx, consumerRef, paddings.size(), batch,
                        (writer, i) -> TestPackets.writePadded(writer, tag, i, paddings.get(i)), done))));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
        consumerRef.complete(consumer);

        await(consumer.enableTracing(config(8 * 1024, "test")));
        assertEquals(0L, done.get(120, TimeUnit.SECONDS), "dropped packets");
        await(consumer.disableTracing());
        List<TracePacket> packets = withTag(producerPackets(read(consumer)), tag);

        assertEquals(paddings.size(), packets.size(), () -> ServiceTesting.describeOrder(packets, paddings.size()));
        for (int i = 0; i < paddings.size(); i++) {
            TracePacket got = TestPackets.withoutServiceFields(packets.get(i));
            if (!TestPackets.expectedPadded(tag, i, paddings.get(i)).equals(got)) {
                assertEquals(TestPackets.expectedPadded(tag, i, paddings.get(i)), got,
                        "packet " + i + " (padding " + paddings.get(i) + ")");
            }
        }
    }

    /**
     * Writer ids are reused once freed, and a new TraceWriter starts its chunk ids at 0 again. The
     * service must not take the new writer's chunks for re-commits (or stale copies) of the old one's.
     */
    @Test
    void aWriterThatReplacesAClosedWriterDoesNotOverwriteItsPackets() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 10;
        CompletableFuture<int[]> writerIds = new CompletableFuture<>();
        connect(service, "producer", new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            TraceWriter first = ctx.newTraceWriter();
            for (int i = 0; i < count; i++) {
                TestPackets.write(first, 1, i);
            }
            first.close(); // e.g. its thread ended
            TraceWriter second = ctx.newTraceWriter();
            for (int i = 0; i < count; i++) {
                TestPackets.write(second, 2, i);
            }
            second.close();
            writerIds.complete(new int[] {first.writerId(), second.writerId()});
        })));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());

        await(consumer.enableTracing(config(1024, "test")));
        int[] ids = await(writerIds);
        await(consumer.disableTracing());
        List<TracePacket> packets = producerPackets(read(consumer));

        String context = " (writer ids " + ids[0] + " then " + ids[1] + ")";
        assertEquals(2 * count, packets.size(), "packets of both writers" + context);
        assertTagged(packets, 1, count);
        assertTagged(packets, 2, count);
    }

    @Test
    void aRecycledWriterIdStartsANewSequenceAndLeavesTheRetiredOneIntact() throws Exception {
        TracingService service = service(SharedMemoryBuffer.DEFAULT_SIZE);
        int count = 300; // several chunks per writer: the new writer's chunk ids 0.. overlap the old one's
        CompletableFuture<int[]> ids = new CompletableFuture<>();
        connect(service, "producer", new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            TraceWriter first = ctx.newTraceWriter();
            int id = first.writerId();
            for (int i = 0; i < count; i++) {
                TestPackets.write(first, 1, i);
            }
            first.close();
            // Ids are handed out round-robin: go around until the retired id comes back.
            TraceWriter second = null;
            for (int n = 0; n < 4 * ChunkHeader.MAX_WRITER_ID && second == null; n++) {
                TraceWriter w = ctx.newTraceWriter();
                if (w.writerId() == id) {
                    second = w;
                } else {
                    w.close();
                }
            }
            if (second == null) {
                ids.completeExceptionally(new AssertionError("writer id " + id + " never came back"));
                return;
            }
            for (int i = 0; i < count; i++) {
                TestPackets.write(second, 2, i);
            }
            second.close();
            ids.complete(new int[] {id, second.writerId()});
        })));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
        await(consumer.enableTracing(config(4096, "test")));
        int[] writerIds = await(ids);
        await(consumer.disableTracing());
        List<TracePacket> packets = read(consumer);
        List<TracePacket> fromProducer = producerPackets(packets);

        assertEquals(writerIds[0], writerIds[1], "the test must reuse the writer id");
        assertTagged(fromProducer, 1, count);
        assertTagged(fromProducer, 2, count);
        assertNotEquals(sequenceIdOf(fromProducer, 1), sequenceIdOf(fromProducer, 2),
                "the new writer of a recycled id is a new sequence");
        assertTrue(fromProducer.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0), "nothing was lost");
        assertEquals(0, traceStats(packets).getBufferStats(0).getChunksRewritten(),
                "no chunk of the new writer was taken for a chunk of the old one");
    }
}
