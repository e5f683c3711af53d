// Le tableau de bord en français, seconde partie : les mots des écrans hors argent (words.ts charge les deux parties ensemble).
export default {
  // Un paiement et ses remboursements.
  Created: 'Créé', 'Transfer of {amount}': 'Transfert de {amount}', 'seen on the chain, confirming': 'vu sur la chaîne, en confirmation', 'received and counted': 'reçu et compté',
  'left the chain (its block was replaced)': 'sorti de la chaîne (son bloc a été remplacé)', 'arrived after the payment closed (not counted)': 'arrivé après la clôture du paiement (non compté)',
  'in another token (not counted)': 'dans un autre jeton (non compté)', 'too small to count': 'trop petit pour compter', ' (block {block})': ' (bloc {block})',
  'Paid in full': 'Payé en entier', 'Settled with what arrived': 'Réglé avec ce qui est arrivé', 'Quote expired': 'Devis expiré', 'Swept {amount} to the payout address': '{amount} transféré vers l’adresse de versement',
  'Event {type} told to the webhook ({state})': 'Événement {type} envoyé au webhook ({state})', 'no webhook URL yet': 'pas encore d’URL de webhook', 'Resend {type}': 'Renvoyer {type}',
  'Delivery attempt: {answer}': 'Tentative de livraison : {answer}', 'answered {status}': 'réponse {status}', 'no answer': 'pas de réponse', 'Payment {reference}': 'Paiement {reference}',
  'Queued: the event will be delivered again.': 'En file : l’événement sera livré à nouveau.', 'All payments': 'Tous les paiements', Status: 'Statut', Price: 'Prix', Asked: 'Demandé', Customer: 'Client',
  'no name': 'sans nom', 'not given': 'non indiqué', 'Deposit address': 'Adresse de dépôt', 'Quote ends': 'Fin du devis', Timeline: 'Chronologie', Payment: 'Paiement',
  'Refund {id} canceled: its amount is back in the balance.': 'Remboursement {id} annulé : son montant est de retour dans le solde.', 'The customer, by the claim link': 'Le client, par le lien de réclamation',
  'Cancel refund {id}': 'Annuler le remboursement {id}', 'expected an amount of {coin} above 0, at most {decimals} decimals, such as 1.5': 'attendu : un montant en {coin} supérieur à 0, d’au plus {decimals} décimales, comme 1.5',
  'Check the amount.': 'Vérifiez le montant.', 'Refund of {amount} {coin} waiting for the customer: give them the claim link below (shown this once).': 'Remboursement de {amount} {coin} en attente du client : donnez-lui le lien ci-dessous (affiché cette fois seulement).',
  'Refund of {amount} {coin} ready: the treasury sends it.': 'Remboursement de {amount} {coin} prêt : la trésorerie l’envoie.', Refund: 'Rembourser', 'How much': 'Combien',
  'All that arrived and is not refunded yet': 'Tout ce qui est arrivé et n’est pas encore remboursé', 'An amount': 'Un montant', Reason: 'Motif', 'The customer\u2019s wallet address': 'L’adresse du portefeuille du client',
  'Send the customer a claim link': 'Envoyer au client un lien de réclamation', 'The customer\u2019s 0x address on the payment\u2019s network.': 'L’adresse 0x du client sur le réseau du paiement.',
  'Claim link': 'Lien de réclamation', 'Copy the claim link': 'Copier le lien de réclamation', Refunds: 'Remboursements', 'Start a refund from its payment\u2019s page.': 'Lancez un remboursement depuis la page de son paiement.',
  'Waiting for the customer\u2019s address': 'En attente de l’adresse du client', 'Ready to send': 'Prêt à envoyer', Sent: 'Envoyé', Confirmed: 'Confirmé', Canceled: 'Annulé',
} as Record<string, string>;
