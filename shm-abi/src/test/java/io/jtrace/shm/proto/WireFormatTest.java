package io.jtrace.shm.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.jtrace.shm.testing.TestPackets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WireFormatTest {
    private static final long[] EDGES = {
        0, 1, 127, 128, 16383, 16384, (1L << 21) - 1, 1L << 21, (1L << 28) - 1, 1L << 28,
        (1L << 35) - 1, 1L << 35, (1L << 56) - 1, 1L << 56, (1L << 63) - 1, Long.MIN_VALUE, -1, -128,
        Integer.MAX_VALUE, Integer.MIN_VALUE, 0xFFFFFFFFL
    };

    @Test
    void varintSizeMatchesProtobufForEdgeValues() {
        for (long v : EDGES) {
            assertEquals(CodedOutputStream.computeUInt64SizeNoTag(v), WireFormat.varintSize(v), "value " + v);
        }
        assertEquals(1, WireFormat.varintSize(0));
        assertEquals(1, WireFormat.varintSize(127));
        assertEquals(2, WireFormat.varintSize(128));
        assertEquals(9, WireFormat.varintSize(Long.MAX_VALUE));
        assertEquals(10, WireFormat.varintSize(-1));
    }

    @Test
    void varintSizeMatchesProtobufForRandomValues() {
        Random r = new Random(1);
        for (int i = 0; i < 100_000; i++) {
            long v = r.nextLong() >>> r.nextInt(64);
            if (r.nextBoolean()) {
                v = -v;
            }
            assertEquals(CodedOutputStream.computeUInt64SizeNoTag(v), WireFormat.varintSize(v), "value " + v);
        }
    }

    @Test
    void varintSizeMatchesProtobufAroundEveryPowerOfTwo() {
        for (int bit = 0; bit < 64; bit++) {
            for (long v : new long[] {(1L << bit) - 1, 1L << bit, (1L << bit) + 1}) {
                assertEquals(CodedOutputStream.computeUInt64SizeNoTag(v), WireFormat.varintSize(v), "value " + v);
            }
        }
    }

    @Test
    void tagCombinesFieldNumberAndWireType() {
        assertEquals(8 << 3 | WireFormat.VARINT, WireFormat.tag(8, WireFormat.VARINT));
        assertEquals(11 << 3 | 2, WireFormat.tag(11, WireFormat.LENGTH_DELIMITED));
        assertEquals(com.google.protobuf.WireFormat.WIRETYPE_FIXED64, WireFormat.FIXED64);
        assertEquals(com.google.protobuf.WireFormat.WIRETYPE_FIXED32, WireFormat.FIXED32);
        assertEquals(com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED, WireFormat.LENGTH_DELIMITED);
    }

    private static void assertRedundantVarintRoundTrips(int size) throws IOException {
        int packed = WireFormat.redundantVarint(size);
        assertEquals(size, WireFormat.decodeRedundantVarint(packed), "size " + size);
        byte[] bytes = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, packed).array();
        for (int i = 0; i < 3; i++) {
            assertEquals(0x80, bytes[i] & 0x80, "continuation bit on byte " + i);
        }
        assertEquals(0, bytes[3] & 0x80, "no continuation bit on byte 3");
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        assertEquals(size, in.readRawVarint32(), "protobuf reads the same value");
        assertEquals(4, in.getTotalBytesRead());
    }

    @Test
    void redundantVarintRoundTripsAtEdges() throws IOException {
        int[] edges = {0, 1, 127, 128, 16383, 16384, (1 << 21) - 1, 1 << 21, (1 << 28) - 2, (1 << 28) - 1};
        for (int size : edges) {
            assertRedundantVarintRoundTrips(size);
        }
        assertEquals(WireFormat.MAX_RESERVED_SIZE, WireFormat.DROPPED_PACKET_SIZE);
        assertEquals(0x7FFFFFFF, WireFormat.redundantVarint(WireFormat.MAX_RESERVED_SIZE));
    }

    @Test
    void redundantVarintRoundTripsForRandomSizes() throws IOException {
        Random r = new Random(2);
        for (int i = 0; i < 100_000; i++) {
            assertRedundantVarintRoundTrips(r.nextInt(1 << 28));
        }
    }

    @Test
    void decodeRejectsBytesWithAMissingContinuationBit() {
        int good = WireFormat.redundantVarint(300);
        for (int b = 0; b < 3; b++) {
            assertEquals(-1, WireFormat.decodeRedundantVarint(good & ~(0x80 << (8 * b))), "byte " + b);
        }
    }

    @Test
    void decodeRejectsAContinuationBitOnTheLastByte() {
        assertEquals(-1, WireFormat.decodeRedundantVarint(WireFormat.redundantVarint(300) | 0x80000000));
        assertEquals(-1, WireFormat.decodeRedundantVarint(0xFFFFFFFF));
    }

    @Test
    void decodeRejectsAMinimalVarint() {
        // 5 as a plain 1-byte varint followed by zeros is a valid varint, but not the reserved 4-byte form.
        assertEquals(-1, WireFormat.decodeRedundantVarint(5));
        assertEquals(-1, WireFormat.decodeRedundantVarint(0));
    }

    @Test
    void decodeRejectsRandomWordsExactlyWhenTheirContinuationBitsAreWrong() {
        Random r = new Random(3);
        for (int i = 0; i < 100_000; i++) {
            int packed = r.nextInt();
            boolean wellFormed = (packed & 0x80808080) == 0x00808080;
            int decoded = WireFormat.decodeRedundantVarint(packed);
            if (wellFormed) {
                assertEquals(packed, WireFormat.redundantVarint(decoded));
            } else {
                assertEquals(-1, decoded, Integer.toHexString(packed));
            }
        }
    }

    @Test
    void utf8LengthMatchesJavasEncoderForWellFormedStrings() {
        Random r = new Random(4);
        for (int i = 0; i < 20_000; i++) {
            String s = TestPackets.randomString(r, 40);
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, WireFormat.utf8Length(s), s);
        }
    }

    @Test
    void utf8LengthCountsEachEncodingLength() {
        assertEquals(0, WireFormat.utf8Length(""));
        assertEquals(1, WireFormat.utf8Length("\u007F"));
        assertEquals(2, WireFormat.utf8Length("\u0080"));
        assertEquals(2, WireFormat.utf8Length("\u07FF"));
        assertEquals(3, WireFormat.utf8Length("\u0800"));
        assertEquals(3, WireFormat.utf8Length("\uFFFF"));
        assertEquals(4, WireFormat.utf8Length(new String(Character.toChars(0x10000))));
        assertEquals(4, WireFormat.utf8Length(new String(Character.toChars(0x10FFFF))));
        assertEquals(1 + 2 + 3 + 4, WireFormat.utf8Length("a\u00e9\u20ac\uD83D\uDE00"));
    }

    @Test
    void utf8LengthCountsUnpairedSurrogatesAsTheQuestionMarkJavaEmits() {
        String[] cases = {
            "\uD800", "\uDC00", "a\uD83D", "\uDE00b", "\uDE00\uD83D", "\uD83D\uD83D\uDE00", "x\uDBFF\uDBFFy\uDFFF",
            "\uD83D\uDE00\uDE00", "\uDFFF\uD800"
        };
        for (String s : cases) {
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, WireFormat.utf8Length(s), escape(s));
        }
    }

    @Test
    void utf8LengthMatchesJavasEncoderForRandomCharsIncludingLoneSurrogates() {
        Random r = new Random(5);
        char[] pool = {'a', '\u00e9', '\u20ac', '\uD83D', '\uDE00', '\uDBFF', '\uDC00', '\uFFFD', '\0'};
        for (int i = 0; i < 20_000; i++) {
            char[] chars = new char[r.nextInt(12)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = r.nextInt(4) == 0 ? (char) r.nextInt(0x10000) : pool[r.nextInt(pool.length)];
            }
            String s = new String(chars);
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, WireFormat.utf8Length(s), escape(s));
        }
    }

    @Test
    void utf8LengthAcceptsAnyCharSequence() {
        StringBuilder sb = new StringBuilder("\u20ac\uD83D\uDE00");
        assertEquals(7, WireFormat.utf8Length(sb));
        assertNotEquals(sb.length(), WireFormat.utf8Length(sb));
    }

    private static String escape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            out.append(String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }
}
