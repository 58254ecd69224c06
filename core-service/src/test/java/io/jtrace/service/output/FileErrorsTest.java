package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Why a file could not be had, in words: an input that is missing is not an output that cannot be made. */
class FileErrorsTest {
    @Test
    void aMissingInputIsSaidNotToExistAndAMissingOutputPathToBeUnmakeable() {
        List<Path> inputs = List.of(Path.of("/data/trace.pftrace"), Path.of("rec.jfr"));
        assertEquals("/data/trace.pftrace: no such file",
                FileErrors.plainly(new NoSuchFileException("/data/trace.pftrace"), inputs));
        assertEquals("rec.jfr: no such file", FileErrors.plainly(new NoSuchFileException("rec.jfr"), inputs));
        assertEquals("rec.jfr: no such file",
                FileErrors.plainly(new UncheckedIOException(new NoSuchFileException("rec.jfr")), inputs));
        assertEquals("/data/out/merged.pftrace does not exist and cannot be made",
                FileErrors.plainly(new NoSuchFileException("/data/out/merged.pftrace"), inputs), "an output keeps its words");
        assertEquals("/data/out does not exist and cannot be made", FileErrors.plainly(new NoSuchFileException("/data/out")));
    }
}
