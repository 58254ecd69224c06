package io.jtrace.benchmarks;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.Producer;
import io.jtrace.service.ProducerEndpoint;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The service's ingest: one op commits every chunk of a 32 MiB SMB (8192 full 4 KiB chunks of small
 * track events, released beforehand) and waits, through a flush round trip, until the service has
 * moved them into its ring buffer. Its peer, {@link SmbCopyBenchmark}, copies the same 32 MiB and
 * nothing else. Both report time per 32 MiB.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ServiceIngestBenchmark {
    private static final int SMB_SIZE = 32 * 1024 * 1024;
    private static final int PAGE = 4096;

    private TracingService service;
    private ConsumerEndpoint consumer;
    private FakeProducer producer;
    private SharedMemoryAbi abi;
    private int target;
    private int nextChunkId;
    private CommitRequest pending;

    /** Hands over its SMB and acknowledges flushes at once; the benchmark writes the chunks. */
    static final class FakeProducer implements Producer {
        volatile ProducerEndpoint endpoint;
        volatile SharedMemoryBuffer smb;
        final CompletableFuture<Integer> targetBuffer = new CompletableFuture<>();

        @Override
        public void onConnect() {}

        @Override
        public void onTracingSetup(Path smbPath, int pageSize) {
            try {
                smb = SharedMemoryBuffer.map(smbPath, pageSize);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void setupDataSource(long instanceId, DataSourceConfig config) {
            targetBuffer.complete(config.getTargetBuffer());
        }

        @Override
        public void startDataSource(long instanceId, DataSourceConfig config) {}

        @Override
        public void stopDataSource(long instanceId) {}

        @Override
        public void flush(long requestId, long[] instanceIds) {
            endpoint.flushComplete(requestId);
        }

        @Override
        public void onDisconnect() {}
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        service = new TracingService(new ServiceConfig(SMB_SIZE, PAGE, null, 4, 1L << 30, 5000));
        producer = new FakeProducer();
        producer.endpoint = service.connectProducer(producer, "bench", 0, 1);
        producer.endpoint.registerDataSource("bench");
        consumer = service.connectConsumer(error -> { });
        consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("bench")))
                .build()).get(10, TimeUnit.SECONDS);
        target = producer.targetBuffer.get(10, TimeUnit.SECONDS);
        producer.endpoint.registerTraceWriter(1, target);
        abi = new SharedMemoryAbi(producer.smb);
        fillPayloads();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        consumer.freeBuffers().get(10, TimeUnit.SECONDS);
        service.close();
    }

    /** Every chunk's payload: as many small track event packets as fit, written once. */
    private void fillPayloads() {
        byte[] packet = TracePacket.newBuilder().setTimestamp(123_456_789_000L)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(3).addCategoryIids(1))
                .setSequenceFlags(2).build().toByteArray();
        ByteBuffer smb = producer.smb.buffer();
        int chunkSize = PageLayout.DIV1.chunkSize(PAGE);
        for (int page = 0; page < abi.pageCount(); page++) {
            int pos = abi.chunkOffset(page, PageLayout.DIV1, 0) + ChunkHeader.SIZE;
            int end = abi.chunkOffset(page, PageLayout.DIV1, 0) + chunkSize;
            while (end - pos >= 4 + packet.length) {
                smb.putInt(pos, WireFormat.redundantVarint(packet.length));
                smb.put(pos + 4, packet);
                pos += 4 + packet.length;
            }
        }
    }

    /** Takes every page's single chunk through the producer side of the state machine again. */
    private CommitRequest prepareChunks() {
        int packetsPerChunk = (PageLayout.DIV1.chunkSize(PAGE) - ChunkHeader.SIZE) / 21;
        CommitRequest request = new CommitRequest(abi.pageCount());
        for (int page = 0; page < abi.pageCount(); page++) {
            abi.tryPartitionPage(page, PageLayout.DIV1);
            int chunk = abi.tryAcquireChunkForWriting(page, PageLayout.DIV1);
            abi.writeChunkHeader(abi.chunkOffset(page, PageLayout.DIV1, chunk), nextChunkId++, 1,
                    ChunkHeader.packetsWord(Math.min(packetsPerChunk, ChunkHeader.MAX_PACKETS), 0));
            abi.releaseChunkAsComplete(page, chunk);
            request.add(page, chunk, target);
        }
        return request;
    }

    /** The producer's side of each op (taking and releasing the chunks) is not what is measured. */
    @Setup(Level.Invocation)
    public void releaseChunks() {
        pending = prepareChunks();
    }

    @Benchmark
    public boolean serviceIngest32MiB() throws Exception {
        producer.endpoint.commit(pending);
        // The flush is answered after the service has handled the commit posted before it.
        return consumer.flush(5000).get(10, TimeUnit.SECONDS);
    }
}
