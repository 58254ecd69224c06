package io.jtrace.service.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class VarintsTest {
    private static byte[] encode(long value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt64NoTag(value);
        out.flush();
        return bytes.toByteArray();
    }

    @Test
    void readsEveryLengthOfVarintUpToTheLargestInt() throws IOException {
        long[] values = {0, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456,
                Integer.MAX_VALUE};
        for (long value : values) {
            byte[] encoded = encode(value);
            // At the start, with slack after it (the unrolled path) and flush with the end (the careful path).
            byte[] padded = Arrays.copyOf(encoded, encoded.length + 8);
            long expected = (long) encoded.length << 32 | value;
            assertEquals(expected, Varints.read(padded, 0, padded.length), "value " + value + " with room after");
            assertEquals(expected, Varints.read(encoded, 0, encoded.length), "value " + value + " at the end");
        }
    }

    @Test
    void readsTheRedundantFourByteSizesWritersReserve() {
        byte[] size = {(byte) 0x8C, (byte) 0x80, (byte) 0x80, 0x00, 0x55};
        assertEquals(4L << 32 | 12, Varints.read(size, 0, size.length));
    }

    @Test
    void refusesValuesOfTwoToTheThirtyOneAndMore() throws IOException {
        for (long value : new long[] {1L << 31, (1L << 32) - 1, 1L << 35, Long.MAX_VALUE, -1L}) {
            byte[] encoded = Arrays.copyOf(encode(value), 12);
            assertEquals(-1, Varints.read(encoded, 0, encoded.length), "value " + value);
        }
    }

    @Test
    void refusesAVarintCutByTheEnd() throws IOException {
        byte[] encoded = encode(300_000);
        for (int end = 0; end < encoded.length; end++) {
            assertEquals(-1, Varints.read(encoded, 0, end), "cut at " + end);
            assertEquals(-1, Varints.skip(encoded, 0, end), "skip cut at " + end);
        }
    }

    @Test
    void skipsAnyVarintOfUpToTenBytesAndNoLonger() throws IOException {
        for (long value : new long[] {0, 5, 1L << 40, Long.MAX_VALUE, -1L}) {
            byte[] encoded = Arrays.copyOf(encode(value), 16);
            assertEquals(encode(value).length, Varints.skip(encoded, 0, encoded.length), "value " + value);
        }
        byte[] eleven = new byte[16];
        Arrays.fill(eleven, 0, 10, (byte) 0x80);
        eleven[10] = 0x01;
        assertEquals(-1, Varints.skip(eleven, 0, eleven.length));
    }

    @Test
    void writesWhatProtobufWrites() throws IOException {
        byte[] out = new byte[16];
        for (long value : new long[] {0, 1, 127, 128, 1L << 31, -1L}) {
            int end = Varints.put(out, 0, value);
            assertEquals(Arrays.toString(encode(value)), Arrays.toString(Arrays.copyOf(out, end)), "value " + value);
        }
    }
}
