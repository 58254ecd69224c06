package io.jtrace.cli.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace the service wrote, kept as far as its packets are whole when its JVM ended inside one. */
class WholePacketsTest {
    @TempDir
    Path dir;

    private static byte[] trace(int packets) {
        Trace.Builder t = Trace.newBuilder();
        for (int i = 0; i < packets; i++) {
            t.addPacket(TracePacket.newBuilder().setTimestamp(1000 + i).setTrustedPacketSequenceId(1));
        }
        return t.build().toByteArray();
    }

    @Test
    void aTraceCutInsideItsLastPacketIsCutBackToItsWholePacketsAndSaysWhere() throws IOException {
        byte[] whole = trace(3);
        byte[] four = trace(4);
        Path file = Files.write(dir.resolve("t.pftrace"), Arrays.copyOf(four, four.length - 2));

        WholePackets kept = WholePackets.keep(file);

        assertEquals(3, kept.packets());
        assertEquals(whole.length, kept.bytes());
        assertEquals(whole.length, Files.size(file));
        assertTrue(kept.cut().contains("the last packet is cut off"), kept.cut());
        assertEquals(3, Trace.parseFrom(Files.readAllBytes(file)).getPacketCount(), "the kept file parses whole");
    }

    @Test
    void aTraceStillBeingFinishedIsReadOnceItStopsGrowing() throws Exception {
        byte[] four = trace(4);
        Path file = Files.write(dir.resolve("t.pftrace"), Arrays.copyOf(four, four.length - 2));
        Thread finisher = new Thread(() -> {
            try {
                Thread.sleep(100);
                Files.write(file, Arrays.copyOfRange(four, four.length - 2, four.length), java.nio.file.StandardOpenOption.APPEND);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        finisher.start();

        // A settling time far above the finisher's delay: the result does not hang on the scheduler.
        WholePackets kept = WholePackets.keepOnceSettled(file, 2_000, 30_000);
        finisher.join();

        assertEquals(4, kept.packets(), "the packet its JVM finished while the command waited");
        assertNull(kept.cut());
        assertEquals(four.length, Files.size(file));
    }

    @Test
    void aWholeTraceIsLeftAsItIs() throws IOException {
        byte[] whole = trace(5);
        Path file = Files.write(dir.resolve("t.pftrace"), whole);

        WholePackets kept = WholePackets.keep(file);

        assertEquals(5, kept.packets());
        assertEquals(whole.length, Files.size(file));
        assertNull(kept.cut());
    }
}
