/* lstm: the ADBench LSTM objective. NL layers of hidden size B run over a sequence of C steps
 * (bench_data: the initial state, 2 NL B values, then the sequence, C x B); the loss is the
 * negated mean log-likelihood of each next step under a softmax prediction. Differentiated
 * with respect to the parameters, as in ADBench: main_params (per layer 4 weight vectors, then
 * 4 bias vectors, each of B: forget, input, output gate, cell change) and extra_params
 * (input weights, output weights, output biases). */
#ifdef SMALL
#define NL 2
#define C 5
#define B 3
#else
#define NL 2
#define C 1024
#define B 14
#endif
#define MAIN_N (2 * NL * 4 * B)
#define EXTRA_N (3 * B)
#define STATE_N (2 * NL * B)

static real sigmoid(real v) { return 1 / (1 + exp(-v)); }

/* ADBench's logsumexp: the + 2 stands for the vocabulary outside the B predicted symbols. */
static real logsumexp(const real *v, int n) {
  real s = 0;
  for (int i = 0; i < n; i++)
    s += exp(v[i]);
  return log(s + 2);
}

/* One layer, one step: updates hidden and cell from input. gates: scratch, 4 B. */
static void lstm_model(const real *weight, const real *bias, real *hidden, real *cell,
                       const real *input, real *gates) {
  real *forget = gates, *ingate = gates + B, *outgate = gates + 2 * B, *change = gates + 3 * B;
  for (int i = 0; i < B; i++) {
    forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
    ingate[i] = sigmoid(hidden[i] * weight[B + i] + bias[B + i]);
    outgate[i] = sigmoid(input[i] * weight[2 * B + i] + bias[2 * B + i]);
    change[i] = tanh(hidden[i] * weight[3 * B + i] + bias[3 * B + i]);
  }
  for (int i = 0; i < B; i++)
    cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
  for (int i = 0; i < B; i++)
    hidden[i] = outgate[i] * tanh(cell[i]);
}

/* One step through all layers: the prediction ypred for the symbol after x. */
static void lstm_predict(const real *w, const real *w2, real *state, const double *x, real *ypred,
                         real *gates) {
  for (int i = 0; i < B; i++)
    ypred[i] = x[i] * w2[i];
  const real *layer_input = ypred;
  for (int l = 0; l < NL; l++) {
    real *hidden = state + 2 * l * B;
    lstm_model(w + 8 * l * B, w + 8 * l * B + 4 * B, hidden, hidden + B, layer_input, gates);
    layer_input = hidden;
  }
  for (int i = 0; i < B; i++)
    ypred[i] = layer_input[i] * w2[B + i] + w2[2 * B + i];
}

static real lstm_objective(const real *main_params, const real *extra_params,
                           const double *data) {
  const double *state0 = data, *sequence = data + STATE_N;
  real *state = REAL_ALLOC(STATE_N), *ypred = REAL_ALLOC(B), *gates = REAL_ALLOC(4 * B);
  for (int i = 0; i < STATE_N; i++)
    state[i] = state0[i];
  real total = 0;
  for (int t = 0; t < C - 1; t++) {
    lstm_predict(main_params, extra_params, state, sequence + t * B, ypred, gates);
    real lse = logsumexp(ypred, B);
    const double *ygold = sequence + (t + 1) * B;
    for (int i = 0; i < B; i++)
      total += ygold[i] * (ypred[i] - lse);
  }
  REAL_FREE(state);
  REAL_FREE(ypred);
  REAL_FREE(gates);
  return -total / ((C - 1) * B);
}

/* x = (main_params, extra_params) */
static real bench_flat(const real *x) { return lstm_objective(x, x + MAIN_N, bench_data); }
