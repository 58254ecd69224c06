package io.jtrace.benchmarks.agent.wire;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The packets of a Perfetto trace file (a {@code Trace}: repeated field 1), read at the wire level. */
public final class TraceFile {
    private TraceFile() {}

    /** What is done with each packet's bytes. */
    public interface PacketConsumer {
        void accept(byte[] packet) throws IOException;
    }

    /** Calls {@code consumer} with every {@code TracePacket} of the file, in order; other fields are skipped. */
    public static void forEachPacket(Path file, PacketConsumer consumer) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 20))) {
            while (true) {
                long tag;
                try {
                    tag = varint(in);
                } catch (EOFException end) {
                    return;
                }
                int length = (int) varint(in);
                byte[] packet = new byte[length];
                in.readFully(packet);
                if (tag == (1 << 3 | 2)) {
                    consumer.accept(packet);
                }
            }
        }
    }

    private static long varint(DataInputStream in) throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IOException("malformed varint");
    }
}
