"""Graph-building helpers of the model: variables, the network."""

import numpy as np
import tensorflow as tf

#: The input domain, mapped to [-1, 1] before the first layer.
LOWER, UPPER = -1.0, 1.0


def xavier_init(size):
    in_dim, out_dim = size
    stddev = np.sqrt(2.0 / (in_dim + out_dim))
    return tf.Variable(tf.random.truncated_normal([in_dim, out_dim], stddev=stddev), dtype=tf.float32)


def initialize_nn(layers):
    weights, biases = [], []
    for l in range(len(layers) - 1):
        weights.append(xavier_init([layers[l], layers[l + 1]]))
        biases.append(tf.Variable(tf.zeros([1, layers[l + 1]], dtype=tf.float32), dtype=tf.float32))
    return weights, biases


def neural_net(X, weights, biases):
    H = 2.0 * (X - LOWER) / (UPPER - LOWER) - 1.0
    for W, b in zip(weights[:-1], biases[:-1]):
        H = tf.tanh(tf.add(tf.matmul(H, W), b))
    return tf.add(tf.matmul(H, weights[-1]), biases[-1])
