package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.service.buffer.PacketSink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The framing of trace files read back: what TraceFileWriter writes, other top-level fields, and every way a file can be cut or broken. */
class TraceFileReaderTest {
    @TempDir
    Path dir;

    private static byte[] frame(int tag, byte[] body) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(tag);
        b.write(body.length); // bodies here are < 128 bytes
        b.writeBytes(body);
        return b.toByteArray();
    }

    private Path file(byte[]... parts) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return Files.write(dir.resolve("t.pftrace"), b.toByteArray());
    }

    private static List<byte[]> readAll(TraceFileReader reader) throws IOException {
        List<byte[]> packets = new ArrayList<>();
        while (reader.next()) {
            packets.add(Arrays.copyOf(reader.packet(), reader.packetLength()));
        }
        return packets;
    }

    @Test
    void readsBackWhatTheWriterWroteIncludingPacketsLargerThanItsBuffer() throws IOException {
        Path file = dir.resolve("w.pftrace");
        byte[] small = {8, 1};
        byte[] large = new byte[300_000];
        Arrays.fill(large, (byte) 0x55);
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            writer.packet(small, 0, 2, PacketSink.NO_TRAILER, 0);
            writer.packet(large, 0, large.length, new byte[] {8, 2}, 2);
            writer.packet(small, 0, 2, PacketSink.NO_TRAILER, 0);
        }
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            List<byte[]> packets = readAll(reader);
            assertEquals(3, packets.size());
            assertArrayEquals(small, packets.get(0));
            assertEquals(large.length + 2, packets.get(1).length);
            assertArrayEquals(small, packets.get(2));
            assertNull(reader.damage());
            assertEquals(Files.size(file), reader.position());
        }
    }

    @Test
    void skipsTopLevelFieldsThatAreNoPacketsAndGivesEachPacketsOffset() throws IOException {
        byte[] first = frame(0x0a, new byte[] {8, 1});
        byte[] varintField = {0x10, (byte) 0x96, 0x01}; // field 2, varint 150
        byte[] bytesField = frame(0x1a, new byte[] {1, 2, 3}); // field 3, length-delimited
        byte[] fixed = {0x25, 1, 2, 3, 4}; // field 4, fixed32
        Path file = file(first, varintField, bytesField, fixed, frame(0x0a, new byte[] {8, 2}));
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            assertTrue(reader.next());
            assertEquals(0, reader.packetOffset());
            assertTrue(reader.next());
            assertArrayEquals(new byte[] {8, 2}, Arrays.copyOf(reader.packet(), reader.packetLength()));
            assertEquals(first.length + varintField.length + bytesField.length + fixed.length, reader.packetOffset());
            assertFalse(reader.next());
            assertNull(reader.damage());
        }
    }

    @Test
    void namesWhereAndHowTheFramingBreaks() throws IOException {
        byte[] packet = frame(0x0a, new byte[] {8, 1});
        String[][] cases = {
                // what follows a whole packet -> the damage reported
                {"0a", "at byte 4 (after 1 packet): the file ends inside a packet's length"},
                {"0a8f", "at byte 4 (after 1 packet): the file ends inside a packet's length"},
                {"0a0508", "at byte 4 (after 1 packet): the last packet is cut off: it needs 5 bytes, the file has 1 more"},
                {"0b", "at byte 4 (after 1 packet): bytes that are no Trace field (tag 11)"},
                {"00", "at byte 4 (after 1 packet): bytes that are no Trace field (tag 0)"},
                {"8f", "at byte 4 (after 1 packet): the file ends inside a field's tag"},
                {"2501", "at byte 4 (after 1 packet): the file ends inside a field"},
                {"8080808080808080808001", "at byte 4 (after 1 packet): bytes that are no Trace field (a tag longer "
                        + "than 10 bytes)"},
                {"0a8080808080808080808001", "at byte 4 (after 1 packet): a packet length longer than 10 bytes"},
        };
        for (String[] c : cases) {
            Path file = file(packet, hex(c[0]));
            try (TraceFileReader reader = TraceFileReader.open(file)) {
                assertEquals(1, readAll(reader).size(), c[0]);
                assertEquals(c[1], reader.damage(), c[0]);
                assertFalse(reader.next(), "nothing is read past the damage");
            }
        }
    }

    @Test
    void aFileThatGrowsWhileReadIsReadAsItWasWhenOpenedAndSaysWhereItsWholePacketsEnd() throws IOException {
        byte[] packet = frame(0x0a, new byte[] {8, 1});
        Path file = file(packet, hex("0a"));
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            // The rest of the cut packet (its length, then its body) lands after the reader opened the file.
            Files.write(file, hex("050801080208"), java.nio.file.StandardOpenOption.APPEND);
            assertEquals(1, readAll(reader).size());
            assertEquals("at byte 4 (after 1 packet): the file ends inside a packet's length", reader.damage());
            assertEquals(4, reader.wholeBytes());
        }
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            assertEquals(2, readAll(reader).size());
            assertNull(reader.damage());
            assertEquals(Files.size(file), reader.wholeBytes());
        }
    }

    @Test
    void aFileThatDoesNotStartWithAPacketIsNoTrace() throws IOException {
        Path file = file("FLR\0".getBytes());
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            TraceFileReader.NotATraceException e = assertThrows(TraceFileReader.NotATraceException.class, reader::next);
            assertEquals(file + " is not a Perfetto trace: it starts with byte 0x46 (a trace starts with 0x0a, its first "
                    + "packet)", e.getMessage());
        }
    }

    @Test
    void aFirstPacketLongerThanAnyArrayIsNoTrace() throws IOException {
        Path file = file(hex("0a8080808010"), new byte[] {8, 1}); // a length of 2^32
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            TraceFileReader.NotATraceException e = assertThrows(TraceFileReader.NotATraceException.class, reader::next);
            assertEquals(file + " is not a Perfetto trace: its first packet would be 4294967296 bytes long", e.getMessage());
        }
    }

    private static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
