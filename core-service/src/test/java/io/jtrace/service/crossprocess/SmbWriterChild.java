package io.jtrace.service.crossprocess;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.SmbFullPolicy;
import io.jtrace.shm.writer.TraceWriter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer half of {@link CrossProcessSmbTest}, run in its own JVM: maps the SMB file the parent
 * created and writes packets into it with real TraceWriters. Its commits go to stdout, one line each
 * ({@code C page chunk target}, {@code P writer chunk offset value more}), the stand-in for IPC; after
 * each batch it prints {@code SYNC} and waits for the parent's {@code FREED} on stdin.
 * Arguments: smb path, page size, writers, packets per writer.
 */
public final class SmbWriterChild {
    /** Packets each writer writes between two waits for the parent: one batch always fits in the SMB. */
    static final int BATCH = 100;
    private static volatile CountDownLatch flushed;

    private SmbWriterChild() {}

    public static void main(String[] args) throws Exception {
        SharedMemoryBuffer smb = SharedMemoryBuffer.map(Path.of(args[0]), Integer.parseInt(args[1]));
        int writers = Integer.parseInt(args[2]);
        int packets = Integer.parseInt(args[3]);
        CommitSink sink = new CommitSink() {
            @Override
            public synchronized void commit(CommitRequest request) {
                StringBuilder lines = new StringBuilder();
                for (int i = 0; i < request.size(); i++) {
                    lines.append("C ").append(request.page(i)).append(' ').append(request.chunk(i)).append(' ')
                            .append(request.targetBuffer(i)).append('\n');
                }
                for (CommitRequest.Patch p : request.patches()) {
                    lines.append("P ").append(p.writerId()).append(' ').append(p.chunkId()).append(' ')
                            .append(p.offset()).append(' ').append(p.value()).append(' ')
                            .append(p.hasMorePatches()).append('\n');
                }
                System.out.print(lines);
                System.out.flush();
            }

            @Override
            public void flushComplete(long requestId) {
                flushed.countDown();
            }
        };
        ChunkCommitter committer = new ChunkCommitter(smb.pageCount(), sink, 1, "child-commit");
        committer.start();
        ChunkArbiter arbiter = new ChunkArbiter(new SharedMemoryAbi(smb), committer);
        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        AtomicLong flushId = new AtomicLong();
        // Flow control, so no packet is ever dropped however slow the parent is: after each batch the
        // writers wait while everything is committed and the parent says it has freed the chunks.
        CyclicBarrier batchDone = new CyclicBarrier(writers, () -> {
            try {
                flushed = new CountDownLatch(1);
                committer.requestFlush(flushId.incrementAndGet());
                flushed.await();
                System.out.println("SYNC");
                System.out.flush();
                if (!"FREED".equals(parent.readLine())) {
                    throw new IllegalStateException("parent did not answer SYNC");
                }
                committer.notifyChunksFreed();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writerIndex = w;
            Thread t = new Thread(() -> {
                TraceWriter writer = new TraceWriter(arbiter, 7, SmbFullPolicy.DROP);
                try {
                    for (int seq = 0; seq < packets; seq++) {
                        write(writer, writerIndex, seq);
                        if (seq % BATCH == BATCH - 1) {
                            writer.flush();
                            batchDone.await();
                        }
                    }
                    writer.flush();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        flushed = new CountDownLatch(1);
        committer.requestFlush(flushId.incrementAndGet());
        flushed.await();
        System.out.println("DONE");
        System.out.flush();
        committer.close();
    }

    /** Packet seq of writer w: timestamp = seq, a track event named after both, padded to a size that varies up to ~20 KiB. */
    static void write(TraceWriter writer, int w, int seq) {
        ProtoWriter p = writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, seq);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.string(TrackEvent.NAME_FIELD_NUMBER, name(w, seq));
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, w);
        p.endNested();
        writer.endPacket();
    }

    static String name(int w, int seq) {
        int padding = seq % 97 == 0 ? 20_000 : (seq * 31 + w) % 300;
        return "w" + w + "-" + seq + "-" + "x".repeat(padding);
    }
}
