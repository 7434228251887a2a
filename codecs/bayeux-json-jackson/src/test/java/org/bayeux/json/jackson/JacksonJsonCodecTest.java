package org.bayeux.json.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bayeux.api.json.JsonCodecContractTest;
import org.bayeux.api.json.JsonCodecProvider;
import org.junit.jupiter.api.Test;

/** Runs the codec contract against {@link JacksonJsonCodec}, plus what is particular to it. */
class JacksonJsonCodecTest extends JsonCodecContractTest {
    @Override
    protected JsonCodecProvider provider() {
        return new JacksonJsonCodecProvider();
    }

    @Test
    void depthLimitsAboveTheSupportedMaximumAreRefused() {
        assertThat(new JacksonJsonCodec(JacksonJsonCodec.MAX_SUPPORTED_NESTING_DEPTH).maxNestingDepth())
                .isEqualTo(JacksonJsonCodec.MAX_SUPPORTED_NESTING_DEPTH);
        assertThatThrownBy(() -> new JacksonJsonCodec(JacksonJsonCodec.MAX_SUPPORTED_NESTING_DEPTH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and 500");
    }
}
