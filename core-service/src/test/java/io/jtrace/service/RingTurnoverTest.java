package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session kept in a ring buffer asks its data sources to clear their incremental state each time
 * {@link RingTurnover#CLEARS_PER_TURN one eighth} of its ring has been written, so whatever window the ring keeps at the end holds a clear of
 * every active sequence (without one, trace_processor could decode none of that sequence's packets
 * before it). A session streaming into a file never overwrites unread chunks and asks for none.
 */
class RingTurnoverTest {
    private static final int WRITER = 1;
    private static final int PAGE = 4096;
    private static final int BUFFER_KB = 64;
    /** Whole-page chunks (a page less its header) that make an eighth of the ring: three. */
    private static final int CHUNKS_PER_CLEAR =
            (BUFFER_KB * 1024 / RingTurnover.CLEARS_PER_TURN + PageLayout.DIV1.chunkSize(PAGE) - 1)
                    / PageLayout.DIV1.chunkSize(PAGE);

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    private int nextChunkId;

    @Test
    void aRingSessionAsksForAClearOnceAnEighthOfItsRingHasBeenWritten() throws Exception {
        Session s = session(b -> b);
        commitChunks(s, CHUNKS_PER_CLEAR - 1);
        await(s.consumer.flush(5000));
        assertEquals(0, s.producer.clears.get(), "less than an eighth of the ring");

        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RingTurnover.MIN_INTERVAL_NANOS) + 5);
        commitChunks(s, 1);
        await(s.consumer.flush(5000));
        assertEquals(1, s.producer.clears.get(), "the last chunk completes the eighth");

        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RingTurnover.MIN_INTERVAL_NANOS) + 5);
        commitChunks(s, CHUNKS_PER_CLEAR - 1);
        await(s.consumer.flush(5000));
        assertEquals(1, s.producer.clears.get(), "the count starts again after a clear");
        commitChunks(s, 1);
        await(s.consumer.flush(5000));
        assertEquals(2, s.producer.clears.get());
    }

    @Test
    void aRingTooSmallForItsRateAsksAtMostOncePerMinimumInterval() throws Exception {
        Session s = session(b -> b);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RingTurnover.MIN_INTERVAL_NANOS) + 5);
        long start = System.nanoTime();
        // Twelve eighths of the ring in one commit: they arrive within the minimum interval of each other.
        commitChunks(s, 12 * CHUNKS_PER_CLEAR);
        await(s.consumer.flush(5000));
        long elapsedIntervals = (System.nanoTime() - start) / RingTurnover.MIN_INTERVAL_NANOS;
        int clears = s.producer.clears.get();
        assertEquals(true, clears >= 1 && clears <= elapsedIntervals + 1,
                clears + " clears in " + elapsedIntervals + " minimum intervals");
    }

    /**
     * Pages handed over with a few packets are stored only as far as their packets go (at least
     * {@link ChunkMover#LEAST_UNTRUSTED_STORED_BYTES}, as this producer is not trusted): the turnover counts what the ring took, not the pages' size.
     */
    @Test
    void aRingCountsTheBytesItKeptOfChunksThatEndEarlyNotTheirPages() throws Exception {
        Session s = session(b -> b);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RingTurnover.MIN_INTERVAL_NANOS) + 5);
        int keptPerChunk = ChunkMover.LEAST_UNTRUSTED_STORED_BYTES;
        int perClear = BUFFER_KB * 1024 / RingTurnover.CLEARS_PER_TURN / keptPerChunk;
        commitChunksEndingEarly(s, perClear - 1);
        await(s.consumer.flush(5000));
        assertEquals(0, s.producer.clears.get(), (perClear - 1) + " chunks of " + keptPerChunk
                + " bytes in the ring, though " + (perClear - 1) * PAGE + " bytes of pages");
        commitChunksEndingEarly(s, 1);
        await(s.consumer.flush(5000));
        assertEquals(1, s.producer.clears.get(), "an eighth of the ring kept");
    }

    @Test
    void aSessionStreamingIntoAFileAsksForNoClearByVolume() throws Exception {
        Session s = session(b -> b.setWriteIntoFile(true).setOutputPath(dir.resolve("t.pftrace").toString()));
        commitChunks(s, 40);
        await(s.consumer.flush(5000));
        assertEquals(0, s.producer.clears.get());
    }

    private record Session(HostileProducer producer, ConsumerEndpoint consumer, int target) {}

    private Session session(UnaryOperator<TraceConfig.Builder> options) throws Exception {
        TracingService service = closer.add(new TracingService(
                new ServiceConfig(2 * 1024 * 1024, PAGE, dir, 4, 1L << 30, 5000)));
        HostileProducer producer = HostileProducer.connect(service, "raw", 1000, 1000, "raw");
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(options.apply(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(BUFFER_KB))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("raw"))))
                .build()));
        int target = await(producer.started).getTargetBuffer();
        producer.endpoint.registerTraceWriter(WRITER, target);
        return new Session(producer, consumer, target);
    }

    /** Commits {@code count} whole-page chunks of one packet each, in one request. */
    private void commitChunks(Session s, int count) {
        SharedMemoryAbi abi = new SharedMemoryAbi(s.producer.smb);
        CommitRequest request = new CommitRequest(count);
        for (int page = 0; page < count; page++) {
            writeChunk(abi, page, nextChunkId++);
            request.add(page, 0, s.target);
        }
        s.producer.endpoint.commit(request);
    }

    /** As {@link #commitChunks}, each with its payload end: where its one packet ends. */
    private void commitChunksEndingEarly(Session s, int count) {
        SharedMemoryAbi abi = new SharedMemoryAbi(s.producer.smb);
        CommitRequest request = new CommitRequest(count);
        for (int page = 0; page < count; page++) {
            int payloadEnd = writeChunk(abi, page, nextChunkId++);
            request.add(page, 0, s.target, payloadEnd, 0);
        }
        s.producer.endpoint.commit(request);
    }

    /** Writes a whole-page chunk of one packet; returns where the packet ends in its payload. */
    private static int writeChunk(SharedMemoryAbi abi, int page, int chunkId) {
        ByteBuffer smb = abi.smb().buffer();
        smb.putInt(abi.pageOffset(page), PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV1), 0,
                ChunkState.COMPLETE));
        int base = abi.chunkOffset(page, PageLayout.DIV1, 0);
        byte[] packet = TracePacket.newBuilder().setTimestamp(chunkId)
                .setTrackEvent(TrackEvent.newBuilder().setName("raw")).build().toByteArray();
        smb.putInt(base + ChunkHeader.SIZE, WireFormat.redundantVarint(packet.length));
        smb.put(base + ChunkHeader.SIZE + 4, packet);
        smb.putInt(base, chunkId);
        smb.putInt(base + 4, ChunkHeader.writerAndPackets(WRITER, ChunkHeader.packetsWord(1, 0)));
        return 4 + packet.length;
    }
}
