package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.WAIT_SECONDS;
import static io.jtrace.service.ServiceTesting.assertTagged;
import static io.jtrace.service.ServiceTesting.await;
import static io.jtrace.service.ServiceTesting.producerPackets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.consumer.IpcTracingConsumer;
import io.jtrace.consumer.TracingException;
import io.jtrace.daemon.TracingDaemon;
import io.jtrace.producer.ProducerClient;
import io.jtrace.producer.remote.IpcProducerEndpoint;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TracingServiceState;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The system backend end to end over real UNIX sockets: a daemon, producers connected through the
 * producer port (SMB handed over by path), a consumer through the consumer port.
 */
class DaemonRoundTripTest {
    private static final int PACKETS = 20_000;

    @TempDir
    Path dir;
    @RegisterExtension
    final Closer closer = new Closer();
    private TracingDaemon daemon;
    private Path smbDir;

    @BeforeEach
    void startDaemon() throws IOException {
        smbDir = Files.createDirectory(dir.resolve("smb"));
        daemon = closer.add(TracingDaemon.start(new ServiceConfig(SharedMemoryBuffer.DEFAULT_SIZE, 4096, smbDir, 8, 1L << 30, 5000),
                dir.resolve("producer.sock"), dir.resolve("consumer.sock")));
    }

    /** A remote producer whose "test" data source writes {@code count} packets tagged {@code tag} on start. */
    private CompletableFuture<Void> remoteProducer(String name, long tag, int count) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            try (TraceWriter writer = ctx.newTraceWriter()) {
                for (int i = 0; i < count; i++) {
                    TestPackets.write(writer, tag, i);
                }
            }
            written.complete(null);
        }));
        ProducerClient client = closer.add(new ProducerClient(name, List.of(source)));
        client.connect(p -> {
            try {
                return IpcProducerEndpoint.connect(dir.resolve("producer.sock"), p, name, 5000, () -> { });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return written;
    }

    private IpcTracingConsumer consumer() throws IOException {
        return closer.add(IpcTracingConsumer.connect(dir.resolve("consumer.sock"), 5000));
    }

    private static TraceConfig config(int bufferKb) {
        return ServiceTesting.config(bufferKb, "test");
    }

    private static List<TracePacket> read(IpcTracingConsumer consumer) throws Exception {
        List<TracePacket> packets = new ArrayList<>();
        long count = await(consumer.readBuffers(bytes -> {
            try {
                packets.add(TracePacket.parseFrom(bytes));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }));
        assertEquals(count, packets.size());
        return packets;
    }

    /** Waits (bounded) until the daemon has {@code n} producers that registered "test". */
    private void awaitProducers(IpcTracingConsumer consumer, int n) throws Exception {
        for (int i = 0; i < 3000; i++) {
            TracingServiceState state = await(consumer.serviceState());
            if (state.getDataSourcesList().stream().filter(d -> d.getDsDescriptor().getName().equals("test")).count() == n) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the daemon never had " + n + " producers of 'test'");
    }

    @Test
    void everyPacketOfTwoRemoteProducersReachesTheConsumerInOrderWithTheirTrustedIdentity() throws Exception {
        IpcTracingConsumer consumer = consumer();
        CompletableFuture<Void> first = remoteProducer("first", 1, PACKETS);
        CompletableFuture<Void> second = remoteProducer("second", 2, PACKETS);
        awaitProducers(consumer, 2);

        CompletableFuture<Void> ended = consumer.enableTracing(config(8192));
        await(first);
        await(second);
        assertTrue(await(consumer.flush(5000)));
        await(consumer.disableTracing());
        await(ended);
        List<TracePacket> packets = read(consumer);

        assertTagged(packets, 1, PACKETS);
        assertTagged(packets, 2, PACKETS);
        // The service puts the identity on the first packet of each chunk (see ChunkPacketReader.emit).
        List<TracePacket> identified = producerPackets(packets).stream().filter(TracePacket::hasTrustedPid).toList();
        assertTrue(identified.size() >= 2, "every sequence carries its producer's identity");
        for (TracePacket p : identified) {
            assertEquals(ProcessIdentity.pid(), p.getTrustedPid(), () -> "the pid the socket vouched for: " + p);
            assertEquals(ProcessIdentity.uid(), p.getTrustedUid());
        }
        TraceStats stats = await(consumer.traceStats());
        assertEquals(0, stats.getChunksDiscarded());
        assertEquals(0, stats.getBufferStats(0).getAbiViolations());
        await(consumer.freeBuffers());
    }

    @Test
    void aRingSessionReadWhileItRunsLosesNothingAndRepeatsNothing() throws Exception {
        IpcTracingConsumer consumer = consumer();
        CompletableFuture<Void> written = remoteProducer("writer", 5, PACKETS);
        awaitProducers(consumer, 1);
        consumer.enableTracing(config(8192));
        List<TracePacket> packets = new ArrayList<>(read(consumer));
        await(written);
        assertTrue(await(consumer.flush(5000)));
        packets.addAll(read(consumer));
        await(consumer.disableTracing());
        packets.addAll(read(consumer));
        assertTagged(packets, 5, PACKETS);
    }

    @Test
    void theSmbFileIsGoneOnceTheRemoteProducerMappedIt() throws Exception {
        IpcTracingConsumer consumer = consumer();
        CompletableFuture<Void> written = remoteProducer("mapper", 3, 10);
        awaitProducers(consumer, 1);
        consumer.enableTracing(config(1024));
        await(written);
        for (int i = 0; i < 3000 && listed(smbDir) > 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(0, listed(smbDir), "no other process can open the producer's shared memory by name");
    }

    private static long listed(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.count();
        }
    }

    @Test
    void aRefusedConfigFailsEnableTracingWithTheServicesReason() throws Exception {
        IpcTracingConsumer consumer = consumer();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> consumer.enableTracing(TraceConfig.getDefaultInstance()).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof TracingException);
        assertTrue(e.getCause().getMessage().contains("buffer"), e.getCause().getMessage());
    }

    @Test
    void aConsumerThatDisconnectsMidSessionFreesIt() throws Exception {
        IpcTracingConsumer leaving = IpcTracingConsumer.connect(dir.resolve("consumer.sock"), 5000);
        leaving.enableTracing(config(1024));
        for (int i = 0; i < 3000 && daemon.service().status().get().sessions().isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertEquals(1, daemon.service().status().get().sessions().size());
        leaving.close();
        for (int i = 0; i < 3000 && !daemon.service().status().get().sessions().isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertTrue(daemon.service().status().get().sessions().isEmpty());
    }

    @Test
    void aProducerThatGoesAwayLeavesTheSessionAndItsCommittedDataAndTheOtherProducers() throws Exception {
        IpcTracingConsumer consumer = consumer();
        CompletableFuture<Void> staying = remoteProducer("staying", 1, PACKETS);
        TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> {
            try (TraceWriter writer = ctx.newTraceWriter()) {
                for (int i = 0; i < 100; i++) {
                    TestPackets.write(writer, 9, i);
                }
            }
        }));
        ProducerClient leaving = new ProducerClient("leaving", List.of(source));
        IpcProducerEndpoint[] endpoint = new IpcProducerEndpoint[1];
        leaving.connect(p -> {
            try {
                return endpoint[0] = IpcProducerEndpoint.connect(dir.resolve("producer.sock"), p, "leaving", 5000, () -> { });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        awaitProducers(consumer, 2);
        CompletableFuture<Void> ended = consumer.enableTracing(config(8192));
        await(staying);
        assertTrue(await(consumer.flush(5000)), "both producers answer the flush");
        endpoint[0].disconnect();
        leaving.close();
        awaitProducers(consumer, 1);
        assertFalse(ended.isDone(), "the session goes on without the producer that left");
        await(consumer.disableTracing());
        await(ended);
        List<TracePacket> packets = read(consumer);
        assertTagged(packets, 1, PACKETS);
        assertTagged(packets, 9, 100);
    }
}
