"""French (source A; the stop label is from a test fixture, [L])."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Discuter avec ChatGPT",),
    "send": ("Envoyer le prompt", "Envoyer"),
    "stop": ("Arrêter la réponse", "Arrêter"),
    "add_files": ("Ajouter des fichiers et plus encore",),
    "upload_entry": ("Ajouter des photos et fichiers",),
    "copy": ("Copier", "Copier la réponse"),
    "retry": ("Réessayer",),  # unseen
    "close": ("Fermer",),
    "dismiss": ("Pas maintenant", "Plus tard", "Non merci", "Fermer", "Compris", "Ignorer",
                "Refuser les cookies non essentiels"),  # unseen
    "forbidden": ("Essayer", "Passer à la version supérieure", "Acheter", "S'abonner",
                  "Accepter", "Tout accepter"),  # unseen
    "upgrade": ("Passer à la version supérieure", "Mettre à niveau"),  # unseen
    "deep_research": ("Recherche approfondie",),
    "model_opener": ("Sélecteur de modèle", "Modèle"),
    "configure": ("Configurer...", "Configurer"),
    "thinking_effort": ("Effort de réflexion",),  # unseen
    "intelligence": ("Intelligence",),
    "show_advanced": ("Afficher les options avancées",),  # unseen
    "power": ("Puissance",),  # unseen
    "Instant": ("Instantané",),  # unseen
    "Light": ("Léger",),  # unseen
    "Standard": ("Standard",),
    "Extended": ("Étendu",),  # unseen
    "Medium": ("Moyen",),
    "High": ("Avancé", "Élevé"),
    "Extra High": ("Très élevé",),
    "Pro": ("Professionnel", "Pro"),
}  # fmt: skip
