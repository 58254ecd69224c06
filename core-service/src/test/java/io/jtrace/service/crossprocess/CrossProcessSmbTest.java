package io.jtrace.service.crossprocess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TracePacket;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SMB ABI across processes: a child JVM maps the file this JVM created and writes with real
 * TraceWriters; this JVM takes the committed chunks out of the shared mapping with the chunk state
 * machine (freeing them for the child to reuse), applies the patches, and reads the packets back
 * through the service's TraceBuffer.
 */
class CrossProcessSmbTest {
    private static final int WRITERS = 3;
    private static final int PACKETS = 3000;

    @TempDir
    Path dir;

    @Test
    void packetsWrittenInAnotherJvmArriveWholeAndInOrderThroughTheSharedMapping() throws Exception {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 1024 * 1024, 4096);
        SharedMemoryAbi abi = new SharedMemoryAbi(smb);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SmbWriterChild.class.getName(),
                smb.path().toString(), "4096", String.valueOf(WRITERS), String.valueOf(PACKETS))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        java.io.Writer toChild = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
        TraceBuffer buffer = new TraceBuffer(256L * 1024 * 1024, TraceBuffer.Policy.DISCARD);
        int chunks = 0;
        boolean done = false;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                String[] f = line.split(" ");
                if (f[0].equals("C")) {
                    assertEquals("7", f[3], "target buffer travels with the commit");
                    moveChunk(abi, buffer, Integer.parseInt(f[1]), Integer.parseInt(f[2]));
                    chunks++;
                } else if (f[0].equals("P")) {
                    assertTrue(buffer.applyPatch(1, Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                            Integer.parseInt(f[4]), Boolean.parseBoolean(f[5])), line);
                } else if (f[0].equals("SYNC")) {
                    // Everything committed before SYNC has been moved (and freed) above.
                    toChild.write("FREED\n");
                    toChild.flush();
                } else if (f[0].equals("DONE")) {
                    done = true;
                }
            }
        }
        assertTrue(child.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue());
        assertTrue(done, "the child saw its final flush acknowledged");

        Map<Long, List<Long>> seqByWriter = new HashMap<>();
        List<String> problems = new ArrayList<>();
        buffer.readAll(identity(), PacketSink.joined((bytes, offset, length) -> {
            try {
                TracePacket p = TracePacket.parseFrom(ByteBuffer.wrap(bytes, offset, length));
                long w = p.getTrackEvent().getTrackUuid();
                if (!p.getTrackEvent().getName().equals(SmbWriterChild.name((int) w, (int) p.getTimestamp()))) {
                    problems.add("wrong content in packet " + p.getTimestamp() + " of writer " + w);
                }
                if (p.getPreviousPacketDropped() != 0) {
                    problems.add("loss reported before packet " + p.getTimestamp() + " of writer " + w);
                }
                seqByWriter.computeIfAbsent(w, k -> new ArrayList<>()).add(p.getTimestamp());
            } catch (Exception e) {
                problems.add(e.toString());
            }
        }), true);

        assertEquals(List.of(), problems);
        assertEquals(WRITERS, seqByWriter.size());
        for (List<Long> seqs : seqByWriter.values()) {
            assertEquals(PACKETS, seqs.size(), "every packet of the writer arrives exactly once");
            for (int i = 0; i < PACKETS; i++) {
                assertEquals(i, seqs.get(i), "in order");
            }
        }
        assertTrue(buffer.counters().bytesWritten() > smb.size(),
                "chunks were recycled across processes: " + chunks + " chunks, " + buffer.counters().bytesWritten()
                        + " bytes moved through an SMB of " + smb.size());
        assertTrue(buffer.counters().patchesSucceeded() > 0, "big packets spanned chunks and were patched");
        assertEquals(0, buffer.counters().abiViolations());
    }

    private static void moveChunk(SharedMemoryAbi abi, TraceBuffer buffer, int page, int chunk) {
        assertTrue(abi.tryAcquireChunkForReading(page, chunk), "committed chunk is COMPLETE in this process's view");
        assertTrue(buffer.copyChunk(1, abi, page, PageHeader.layout(abi.pageBitmap(page)), chunk, true, -1, 0) >= 0);
        assertTrue(abi.releaseChunkAsFree(page, chunk));
    }

    private static SequenceIdentity identity() {
        return new SequenceIdentity() {
            @Override
            public int sequenceId(int producerId, int writerId) {
                return 100 + writerId;
            }

            @Override
            public int pid(int producerId) {
                return 1;
            }

            @Override
            public int uid(int producerId) {
                return 1;
            }

            @Override
            public boolean trusted(int producerId) {
                return false;
            }
        };
    }
}
