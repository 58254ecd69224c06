package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a flush of a session that streams into a file takes from its producers' SMBs beyond their
 * commits: the chunks in-process writers still hold, so a thread that went quiet has its events in the
 * file; not a chunk that is complete and whose commit is on its way, nor another process's held chunk
 * (both come later, once); and not a held chunk the buffer has no room for without overwriting what the
 * file has not had yet, judged by the bytes the copy takes.
 */
class FlushCopiesHeldChunksTest {
    private static final int QUIET = 1;
    private static final int OTHER = 2;

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void anInProcessWritersHeldChunkIsInTheFileAfterAFlushAndOnceAtTheEnd() throws Exception {
        Streaming s = streaming(64, true);
        writeChunk(s.abi, 0, QUIET, 0, 0, 5, ChunkState.BEING_WRITTEN, 0);
        await(s.consumer.flush(5000));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), awaitInFile(s.file, QUIET, t -> t.size() >= 5));

        writeChunk(s.abi, 0, QUIET, 0, 0, 8, ChunkState.COMPLETE, 0);
        commit(s, 0);
        await(s.consumer.disableTracing());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), inFile(s.file, QUIET), "each event once, in order");
    }

    @Test
    void aCompleteChunkWhoseCommitIsOnItsWayIsLeftToItsCommit() throws Exception {
        Streaming s = streaming(64, true);
        writeChunk(s.abi, 0, QUIET, 0, 0, 5, ChunkState.COMPLETE, 0);
        writeChunk(s.abi, 1, OTHER, 0, 100, 1, ChunkState.BEING_WRITTEN, 0);
        await(s.consumer.flush(5000));
        awaitInFile(s.file, OTHER, t -> !t.isEmpty());
        assertEquals(List.of(), inFile(s.file, QUIET), "the complete chunk was not copied by the flush");

        commit(s, 0);
        await(s.consumer.disableTracing());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), inFile(s.file, QUIET), "its commit brought it, once");
    }

    @Test
    void aRefusedDumpOfASessionThatStreamsIntoAFileCopiesNothingAFlushCouldReadBeforeTheCommit() throws Exception {
        Streaming s = streaming(64, true);
        writeChunk(s.abi, 0, QUIET, 0, 0, 5, ChunkState.COMPLETE, 0);
        long session = await(s.service.status()).sessions().get(0).id();
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> s.service.dump(session, dir.resolve("dump.pftrace")).get(30, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof IllegalStateException, refused.toString());

        await(s.consumer.flush(5000));
        commit(s, 0);
        await(s.consumer.disableTracing());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), inFile(s.file, QUIET), "its commit brought it, once");
        assertEquals(0, lastStats(s.file).getChunksDiscarded(), "no copy read before the commit made it look late");
    }

    @Test
    void anotherProcesssHeldChunkIsLeftToTheEndOfTheSession() throws Exception {
        Streaming s = streaming(64, false);
        writeChunk(s.abi, 0, QUIET, 0, 0, 5, ChunkState.BEING_WRITTEN, 0);
        writeChunk(s.abi, 1, OTHER, 0, 100, 1, ChunkState.COMPLETE, 0);
        commit(s, 1);
        await(s.consumer.flush(5000));
        awaitInFile(s.file, OTHER, t -> !t.isEmpty());
        assertEquals(List.of(), inFile(s.file, QUIET), "its packets are validated only once its chunk is whole");

        await(s.consumer.disableTracing());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), inFile(s.file, QUIET), "the scrape at the end took it, once");
        assertEquals(0, lastStats(s.file).getChunksRewritten(), "the flush did not copy it into the buffer either");
    }

    /**
     * A sequence whose first chunk waits for a patch holds three whole chunks unread in a 14 KiB ring:
     * 2 KiB are left, less than a chunk but more than the five events a quiet writer holds. The flush
     * copies those (their bytes are all a held chunk's copy takes), and overwrites nothing.
     */
    @Test
    void aHeldChunkIsCopiedWhenItsUsedBytesFitWhereTheWholeChunkWouldNot() throws Exception {
        Streaming s = streaming(14, true);
        for (int id = 0; id < 3; id++) {
            writeChunk(s.abi, 1 + id, OTHER, id, 100 + 10 * id, 10, ChunkState.COMPLETE,
                    id == 0 ? ChunkHeader.FLAG_NEEDS_PATCHING : 0);
        }
        commit(s, 1, 2, 3);
        writeChunk(s.abi, 0, QUIET, 0, 0, 5, ChunkState.BEING_WRITTEN, 0);
        await(s.consumer.flush(5000));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), awaitInFile(s.file, QUIET, t -> t.size() >= 5));
        assertEquals(List.of(), inFile(s.file, OTHER), "the stuck sequence is still unread");

        await(s.consumer.disableTracing());
        assertEquals(0, lastStats(s.file).getChunksOverwritten(), "nothing overwritten");
    }

    private static TraceStats.BufferStats lastStats(Path file) throws IOException {
        return ServiceTesting.traceStats(Trace.parseFrom(Files.readAllBytes(file)).getPacketList()).getBufferStats(0);
    }

    private record Streaming(Path file, HostileProducer producer, ConsumerEndpoint consumer, int target,
                             SharedMemoryAbi abi, TracingService service) {}

    /** A session streaming into a file, with one producer (in-process when {@code trusted}) and its two writers. */
    private Streaming streaming(int bufferKb, boolean trusted) throws Exception {
        TracingService service = closer.add(new TracingService(
                new ServiceConfig(2 * 1024 * 1024, 4096, dir, 4, 1L << 30, 5000)));
        HostileProducer producer = trusted ? HostileProducer.connectInProcess(service, "raw", "raw")
                : HostileProducer.connect(service, "raw", 1000, 1000, "raw");
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        Path file = dir.resolve("flushed.pftrace");
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(bufferKb))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("raw")))
                .setWriteIntoFile(true).setFileWritePeriodMs(3_600_000).setOutputPath(file.toString()).build()));
        int target = await(producer.started).getTargetBuffer();
        producer.endpoint.registerTraceWriter(QUIET, target);
        producer.endpoint.registerTraceWriter(OTHER, target);
        return new Streaming(file, producer, consumer, target, new SharedMemoryAbi(producer.smb), service);
    }

    private static void commit(Streaming s, int... pages) {
        CommitRequest request = new CommitRequest(pages.length);
        for (int page : pages) {
            request.add(page, 0, s.target);
        }
        s.producer.endpoint.commit(request);
    }

    /**
     * Lays page {@code page} out as one chunk in {@code state}, of {@code writer}'s chunk {@code chunkId},
     * holding {@code count} events named after the writer with timestamps from {@code first}.
     */
    private static void writeChunk(SharedMemoryAbi abi, int page, int writer, int chunkId, long first, int count,
                                   ChunkState state, int flags) {
        ByteBuffer smb = abi.smb().buffer();
        int base = abi.chunkOffset(page, PageLayout.DIV1, 0);
        int pos = base + ChunkHeader.SIZE;
        for (long t = first; t < first + count; t++) {
            byte[] packet = TracePacket.newBuilder().setTimestamp(t)
                    .setTrackEvent(TrackEvent.newBuilder().setName("writer-" + writer)).build().toByteArray();
            smb.putInt(pos, WireFormat.redundantVarint(packet.length));
            smb.put(pos + 4, packet);
            pos += 4 + packet.length;
        }
        smb.putInt(base, chunkId);
        smb.putInt(base + 4, ChunkHeader.writerAndPackets(writer, ChunkHeader.packetsWord(count, flags)));
        smb.putInt(abi.pageOffset(page), PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV1), 0, state));
    }

    /** Timestamps of {@code writer}'s events in the file as it is now. */
    private static List<Long> inFile(Path file, int writer) throws IOException {
        List<Long> timestamps = new ArrayList<>();
        for (TracePacket p : Trace.parseFrom(Files.readAllBytes(file)).getPacketList()) {
            if (p.hasTrackEvent() && p.getTrackEvent().getName().equals("writer-" + writer)) {
                timestamps.add(p.getTimestamp());
            }
        }
        return timestamps;
    }

    /** {@link #inFile} once {@code ready} holds for it (the file is written on the writer's own thread). */
    private static List<Long> awaitInFile(Path file, int writer, Predicate<List<Long>> ready) throws Exception {
        long deadline = System.nanoTime() + ServiceTesting.WAIT_SECONDS * 1_000_000_000L;
        List<Long> found = inFile(file, writer);
        while (!ready.test(found) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            found = inFile(file, writer);
        }
        return found;
    }
}
