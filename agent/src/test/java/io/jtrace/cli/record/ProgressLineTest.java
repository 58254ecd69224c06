package io.jtrace.cli.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.cli.trace.LossCounts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The progress line: rewritten in place on a terminal, rationed to a line per quiet period in a log. */
class ProgressLineTest {
    private static final String NL = System.lineSeparator();
    private static final long SECOND = 1_000_000_000L;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String err() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void offATerminalNoLineComesBeforeTheQuietPeriodHasPassed() {
        ProgressLine progress = new ProgressLine(err, false, 3_600_000);
        for (int i = 0; i < 5; i++) {
            progress.update(i * SECOND, 1000, 10, LossCounts.NONE);
        }
        progress.finish();
        assertEquals("", err(), "an hour's quiet period: nothing within it");
    }

    @Test
    void offATerminalEachUpdateAfterTheQuietPeriodIsALineOfItsOwn() {
        ProgressLine progress = new ProgressLine(err, false, 0);
        progress.update(7 * SECOND, 512, 3, LossCounts.NONE);
        progress.update(8 * SECOND, 3500, 4, new LossCounts(2, 0, 0, 0, 0, 0, 0, 0));
        progress.finish();
        assertEquals("recording 0:07  512 B  3 packets  no loss" + NL
                + "recording 0:08  3.4 KB  4 packets  lost: chunks_overwritten=2" + NL, err());
    }

    @Test
    void onATerminalTheLineIsRewrittenInPlaceAndBlanksWhatALongerOneLeft() {
        ProgressLine progress = new ProgressLine(err, true, 3_600_000);
        progress.update(SECOND, 100, 1, new LossCounts(0, 0, 12, 0, 0, 0, 0, 0));
        String first = "recording 0:01  100 B  1 packets  lost: trace_writer_packet_loss=12";
        progress.update(2 * SECOND, 100, 2, LossCounts.NONE);
        String second = "recording 0:02  100 B  2 packets  no loss";
        progress.finish();
        assertEquals("\r" + first + "\r" + second + " ".repeat(first.length() - second.length()) + NL, err(),
                "a terminal gets every update, whatever the quiet period, and a line end at the finish");
    }

    @Test
    void durationsAndSizesReadAsAPersonWouldWriteThem() {
        assertEquals("0:00", ProgressLine.duration(999_999_999L));
        assertEquals("12:30", ProgressLine.duration(750 * SECOND));
        assertEquals("1:02:03", ProgressLine.duration(3723 * SECOND));
        assertEquals("1023 B", ProgressLine.size(1023));
        assertEquals("1.0 KB", ProgressLine.size(1024));
        assertEquals("12.0 MB", ProgressLine.size(12L << 20));
        assertEquals("1.5 GB", ProgressLine.size(3L << 29));
        assertEquals("2048.0 TB", ProgressLine.size(1L << 51));
    }
}
