package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session that streams into a file keeps everything its producers committed, even when one commit
 * carries more than its whole buffer (the SMB is larger than a small trace buffer, and a producer that
 * was starved of CPU commits everything it wrote at once): the service writes the file before a chunk
 * would overwrite one not yet read.
 */
class FileSessionNeverOverwritesTest {
    private static final int WRITER = 1;
    private static final int PAGES = 100;
    private static final int BUFFER_KB = 64;

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void oneCommitOfSixTimesTheBufferReachesTheFileWhole() throws Exception {
        Burst burst = burst(0);
        assertEquals(burst.packets, burst.inOrder(), "every packet of the burst is in the file");
        TraceStats.BufferStats stats = burst.stats();
        assertEquals(0, stats.getChunksOverwritten(), "chunks overwritten");
        assertTrue(stats.getBytesWritten() > 5L * BUFFER_KB * 1024, "the burst is several times the buffer: " + stats);
    }

    /**
     * The burst is drained into the file several times (it is six buffers' worth), and a clock snapshot
     * is due only at the start and at the end of so short a session: not one per read.
     */
    @Test
    void aFileReadManyTimesCarriesAClockSnapshotAtItsStartAndItsEndOnly() throws Exception {
        Burst burst = burst(0);
        long snapshots = burst.trace.stream().filter(TracePacket::hasClockSnapshot).count();
        assertEquals(2, snapshots, "the header's and the last read's");
        assertTrue(burst.trace.get(0).hasClockSnapshot(), "the header's comes first");
    }

    /**
     * However large its buffer, a streaming session drains it into the file writer once 256 KiB have come
     * in since the last drain, not only at its file_write_period (an hour here) or when a sixteenth of the
     * buffer (512 KiB) has filled: the writer gets chunks while the ring's copy of them is still in the
     * cache. The writer writes whole blocks as its own 256 KiB buffer overflows, so the 320 KiB drained at
     * once put at least 256 KiB into the file.
     */
    @Test
    void aLargeStreamingBufferIsDrainedToTheFileWriterEveryQuarterMebibyte() throws Exception {
        Path file = dir.resolve("drained.pftrace");
        Streaming s = streaming(file, 8 * 1024, b -> b.setFileWritePeriodMs(3_600_000));
        SharedMemoryAbi abi = new SharedMemoryAbi(s.producer.smb);
        CommitRequest request = new CommitRequest(PAGES);
        long packets = 0;
        for (int page = 0; page < 80; page++) {
            packets = fillChunk(abi, page, packets, false);
            request.add(page, 0, s.target);
        }
        s.producer.endpoint.commit(request);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ServiceTesting.WAIT_SECONDS);
        while (Files.size(file) < 256 * 1024 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(Files.size(file) >= 256 * 1024, "320 KiB committed, " + Files.size(file) + " bytes in the file");
    }

    /**
     * The writer left a size open in the burst's first chunk and sent the patch in the same commit: until
     * patched, that chunk stops its sequence's read-out, so the patch must go in before the buffer is
     * drained to make room, or nothing of the sequence could be drained and the ring would overwrite it.
     */
    @Test
    void aChunkWaitingForAPatchInTheSameCommitIsPatchedBeforeTheBufferIsDrained() throws Exception {
        Burst burst = burst(0, 0);
        assertEquals(burst.packets, burst.inOrder(), "every packet of the burst is in the file");
        TraceStats.BufferStats stats = burst.stats();
        assertEquals(0, stats.getChunksOverwritten(), "chunks overwritten");
        assertEquals(0, stats.getPatchesFailed(), "patches failed");
        assertEquals(1, stats.getPatchesSucceeded(), "patches applied");
    }

    /**
     * A file that reached max_file_size_bytes gets no more writes while the session stops, however much is
     * committed: the buffer keeps what it holds for the last read, and the chunks that would overwrite it
     * are discarded and counted. The file holds the burst's packets from the first on, none missing.
     */
    @Test
    void aFileAtItsSizeLimitStopsGrowingWhileTheSessionStopsAndNothingIsOverwritten() throws Exception {
        long max = 100_000;
        Burst burst = burst(max);
        long size = Files.size(burst.file);
        // The write that crossed the limit (at most a buffer's worth) and the last read at the end.
        assertTrue(size < max + 2L * BUFFER_KB * 1024 + 4096, "file of " + size + " bytes for a limit of " + max);
        TraceStats.BufferStats stats = burst.stats();
        assertEquals(0, stats.getChunksOverwritten(), "chunks overwritten");
        assertTrue(stats.getChunksDiscarded() > 0, "the chunks after the limit are counted as discarded");
        assertTrue(burst.inOrder() > 0, "the file holds an unbroken prefix of the burst (inOrder checks each)");
    }

    /** One commit of {@link #PAGES} full chunks; {@code needsPatch} chunks are flagged and patched in the same commit. */
    private Burst burst(long maxFileSize, int... needsPatch) throws Exception {
        Path file = dir.resolve("burst.pftrace");
        Streaming s = streaming(file, BUFFER_KB, b -> b.setMaxFileSizeBytes(maxFileSize));
        HostileProducer producer = s.producer;
        ConsumerEndpoint consumer = s.consumer;
        int target = s.target;

        SharedMemoryAbi abi = new SharedMemoryAbi(producer.smb);
        CommitRequest request = new CommitRequest(PAGES);
        long packets = 0;
        for (int page = 0; page < PAGES; page++) {
            int thisPage = page;
            boolean flagged = Arrays.stream(needsPatch).anyMatch(p -> p == thisPage);
            int sizeField = abi.chunkOffset(page, PageLayout.DIV1, 0) + ChunkHeader.SIZE;
            packets = fillChunk(abi, page, packets, flagged);
            request.add(page, 0, target);
            if (flagged) {
                // Writes the first packet's size again, as the writer does when it finishes a packet late.
                request.addPatch(new CommitRequest.Patch(WRITER, page, 0, abi.smb().buffer().getInt(sizeField), false));
            }
        }
        producer.endpoint.commit(request);
        await(consumer.disableTracing());
        return new Burst(file, packets, Trace.parseFrom(Files.readAllBytes(file)).getPacketList());
    }

    /** A session streaming into {@code file} from one raw producer with writer {@link #WRITER} registered. */
    private record Streaming(HostileProducer producer, ConsumerEndpoint consumer, int target) {}

    private Streaming streaming(Path file, int bufferKb, UnaryOperator<TraceConfig.Builder> options) throws Exception {
        TracingService service = closer.add(new TracingService(
                new ServiceConfig(2 * 1024 * 1024, 4096, dir, 4, 1L << 30, 5000)));
        HostileProducer producer = HostileProducer.connect(service, "raw", 1000, 1000, "raw");
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(options.apply(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(bufferKb))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("raw")))
                .setWriteIntoFile(true).setOutputPath(file.toString())).build()));
        int target = await(producer.started).getTargetBuffer();
        producer.endpoint.registerTraceWriter(WRITER, target);
        return new Streaming(producer, consumer, target);
    }

    private record Burst(Path file, long packets, List<TracePacket> trace) {
        /** The burst's packets found in the file, checking they are in the order written. */
        long inOrder() {
            long next = 0;
            for (TracePacket p : trace) {
                if (p.hasTrackEvent() && p.getTrackEvent().getName().equals("raw")) {
                    assertEquals(next++, p.getTimestamp(), "packets in the order written, none missing");
                }
            }
            return next;
        }

        TraceStats.BufferStats stats() {
            return ServiceTesting.traceStats(trace).getBufferStats(0);
        }
    }

    /** Fills page {@code page} as one COMPLETE chunk (id = page) of packets numbered from {@code first}; returns the next number. */
    private static long fillChunk(SharedMemoryAbi abi, int page, long first, boolean needsPatching) {
        ByteBuffer smb = abi.smb().buffer();
        smb.putInt(abi.pageOffset(page), PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV1), 0,
                ChunkState.COMPLETE));
        int base = abi.chunkOffset(page, PageLayout.DIV1, 0);
        int end = base + PageLayout.DIV1.chunkSize(abi.pageSize());
        int pos = base + ChunkHeader.SIZE;
        int count = 0;
        long n = first;
        while (true) {
            byte[] packet = TracePacket.newBuilder().setTimestamp(n)
                    .setTrackEvent(TrackEvent.newBuilder().setName("raw").addCategories("x".repeat(60)))
                    .build().toByteArray();
            if (pos + 4 + packet.length > end) {
                break;
            }
            smb.putInt(pos, WireFormat.redundantVarint(packet.length));
            smb.put(pos + 4, packet);
            pos += 4 + packet.length;
            count++;
            n++;
        }
        smb.putInt(base, page);
        smb.putInt(base + 4, ChunkHeader.writerAndPackets(WRITER,
                ChunkHeader.packetsWord(count, needsPatching ? ChunkHeader.FLAG_NEEDS_PATCHING : 0)));
        return n;
    }
}
