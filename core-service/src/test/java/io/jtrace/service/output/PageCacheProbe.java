package io.jtrace.service.output;

import java.nio.file.Path;

/**
 * Run in a JVM of its own by {@link TraceFileDirectIoTest}: writes {@code args[1]} packets of 100 bytes (valid TracePackets)
 * into {@code args[0]} and prints whether the file was written with direct I/O.
 */
public final class PageCacheProbe {
    private PageCacheProbe() {}

    public static void main(String[] args) throws Exception {
        byte[] body = new byte[100];
        boolean direct;
        try (TraceFileWriter writer = new TraceFileWriter(Path.of(args[0]))) {
            for (int i = 0; i < Integer.parseInt(args[1]); i++) {
                for (int k = 0; k < body.length; k += 2) {
                    body[k] = 0x40; // timestamp, 50 times over (the last counts): a valid TracePacket
                    body[k + 1] = (byte) (i & 0x7F);
                }
                writer.packet(body, 0, body.length, new byte[0], 0);
            }
            direct = writer.directIo();
        }
        System.out.println("direct=" + direct);
    }
}
