package io.jtrace.shm.testing;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of tests that each open one {@link SmbRig}: a test creates it in {@link #dir} and assigns it to
 * {@link #rig}, which is closed (its commit thread stopped) after the test.
 */
public abstract class SmbRigFixture {
    @TempDir
    protected Path dir;

    protected SmbRig rig;

    @AfterEach
    protected void closeRig() {
        if (rig != null) {
            rig.close();
        }
    }
}
