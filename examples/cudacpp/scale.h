// Included by helpers.cu.
constexpr float kScale = 0.5f;
