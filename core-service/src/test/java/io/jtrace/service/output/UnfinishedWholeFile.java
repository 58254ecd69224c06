package io.jtrace.service.output;

import io.jtrace.service.buffer.PacketSink;
import java.nio.file.Path;

/**
 * Run in a JVM of its own by {@link WholeTraceFileTest}: starts a whole trace file at {@code args[0]},
 * writes a packet into it, prints its temporary file's path and exits before the file is committed or
 * closed, as a JVM does that ends while a dump is still being written.
 */
public final class UnfinishedWholeFile {
    private UnfinishedWholeFile() {}

    public static void main(String[] args) throws Exception {
        WholeTraceFile file = WholeTraceFile.beside(Path.of(args[0]));
        byte[] packet = new byte[1000];
        file.writer().packet(packet, 0, packet.length, PacketSink.NO_TRAILER, 0);
        file.writer().flush();
        System.out.println("temp=" + file.temp());
        System.out.flush();
        System.exit(0);
    }
}
