package io.jtrace.service.output;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The one reference to {@code com.sun.nio.file.ExtendedOpenOption}, in a class of its own: that option
 * lives in the {@code jdk.unsupported} module, which a runtime image may lack. Then this class fails to
 * load when first called ({@link NoClassDefFoundError}), inside {@link TraceFileChannel}'s attempt, which
 * writes through the page cache instead; the class that calls it still loads and verifies.
 */
final class DirectOpen {
    private DirectOpen() {}

    /** Opens an existing {@code file} for writing with O_DIRECT. */
    static FileChannel open(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
    }
}
