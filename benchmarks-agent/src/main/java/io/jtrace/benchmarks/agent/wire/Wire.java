package io.jtrace.benchmarks.agent.wire;

import java.nio.charset.StandardCharsets;

/** A cursor over protobuf fields in {@code b[pos, end)}: enough to read a trace without jtrace's classes. */
public final class Wire {
    private final byte[] b;
    private int pos;
    private final int end;
    private int wireType;

    public Wire(byte[] b, int pos, int end) {
        this.b = b;
        this.pos = pos;
        this.end = end;
    }

    public boolean more() {
        return pos < end;
    }

    public int field() {
        long tag = varint();
        wireType = (int) (tag & 7);
        return (int) (tag >>> 3);
    }

    public long varint() {
        long result = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[pos++];
            result |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return result;
            }
        }
    }

    public Wire nested() {
        int length = (int) varint();
        Wire w = new Wire(b, pos, pos + length);
        pos += length;
        return w;
    }

    public String string() {
        int length = (int) varint();
        String s = new String(b, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    public void skip() {
        switch (wireType) {
            case 0 -> varint();
            case 1 -> pos += 8;
            case 2 -> {
                int length = (int) varint(); // before the +=, which would read pos ahead of the varint
                pos += length;
            }
            case 5 -> pos += 4;
            default -> throw new IllegalStateException("wire type " + wireType);
        }
    }
}
